import { afterEach, describe, expect, it, vi } from 'vitest';
import { type SseEvent, streamEvents } from '../../src/client/event-stream.js';
import { AuthenticationError } from '../../src/client/errors.js';
import { type RunningReference, startReference } from '../../src/reference/start.js';
import { transport, until } from '../support/sse-server.js';

const refs: RunningReference[] = [];
afterEach(async () => {
  await Promise.all(refs.splice(0).map((r) => r.close()));
});

async function reference(port = 0) {
  const ref = await startReference({ port, clock: 'manual' });
  refs.push(ref);
  return ref;
}

const eventsUrl = (ref: RunningReference) => `${ref.base_url}/api/v1/public/events`;
const auth = (key: string) => () => ({ authorization: `Bearer ${key}` });

async function createPayment(ref: RunningReference, amount: number): Promise<string> {
  const res = await fetch(`${ref.base_url}/api/v1/public/payments`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ref.api_key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount, order_id: `o-${amount}` }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { payment: { id: string } }).payment.id;
}

const fast = { backoff: { initialDelayMs: 1, maxDelayMs: 20 } };

describe('streamEvents against the reference service', () => {
  it('yields payment.created with the spec fields once connected', async () => {
    const ref = await reference();
    const debug = vi.fn();
    const stream = streamEvents(transport(eventsUrl(ref), { headers: auth(ref.api_key), logger: { debug } }));
    const it = stream[Symbol.asyncIterator]();
    const first = it.next();
    await until(() => expect(debug).toHaveBeenCalledWith('psp-sdk: event stream connected', { attempt: 1 }));
    const id = await createPayment(ref, 4200);
    const ev = (await first).value as SseEvent;
    expect(ev.kind).toBe('payment.created');
    if (ev.kind === 'payment.created') {
      expect(ev.payload.id).toBe(id);
      expect(ev.payload.amount).toBe(4200);
      expect(typeof ev.payload.status).toBe('string');
    }
    expect(typeof ev.at).toBe('string');
    stream.close();
    await it.return?.();
  });

  it('a second stream with the same key replaces the first, which ends without reconnecting', async () => {
    const ref = await reference();
    const onEnd = vi.fn();
    const debug = vi.fn();
    const first = streamEvents(transport(eventsUrl(ref), { headers: auth(ref.api_key), logger: { debug } }), {
      ...fast,
      onEnd,
    });
    const firstDone = (async () => {
      const seen: SseEvent[] = [];
      for await (const ev of first) seen.push(ev);
      return seen;
    })();
    await until(() => expect(debug).toHaveBeenCalled());
    const second = streamEvents(transport(eventsUrl(ref), { headers: auth(ref.api_key) }));
    const it = second[Symbol.asyncIterator]();
    const next = it.next();
    expect(await firstDone).toEqual([]);
    expect(onEnd).toHaveBeenCalledWith({ reason: 'replaced' });
    const id = await createPayment(ref, 777);
    expect(((await next).value as SseEvent).payload.id).toBe(id);
    second.close();
    await it.return?.();
  });

  it('reconnects after the reference restarts on the same port, and reports the reconnection', async () => {
    const a = await reference();
    const port = Number(new URL(a.base_url).port);
    let key = a.api_key;
    const debug = vi.fn();
    const onReconnect = vi.fn();
    const stream = streamEvents(transport(eventsUrl(a), { headers: () => auth(key)(), logger: { debug } }), {
      ...fast,
      onReconnect,
    });
    const it = stream[Symbol.asyncIterator]();
    const next = it.next();
    await until(() => expect(debug).toHaveBeenCalledTimes(1));
    await a.close();
    refs.splice(refs.indexOf(a), 1);
    const b = await reference(port);
    key = b.api_key; // a fresh reference issues a fresh key; headers() is asked again per attempt
    await until(() => expect(onReconnect).toHaveBeenCalledOnce());
    const id = await createPayment(b, 1234);
    expect(((await next).value as SseEvent).payload.id).toBe(id);
    stream.close();
    await it.return?.();
  });

  it('a wrong key gets the typed 401 error', async () => {
    const ref = await reference();
    const err = await (async () => {
      for await (const _ of streamEvents(
        transport(eventsUrl(ref), { headers: auth('sk_test_abcdef_wrong') }),
      )) {
        // no events expected
      }
    })().catch((e) => e);
    expect(err).toBeInstanceOf(AuthenticationError);
  });
});

describe('client.events.stream (PspClient wiring) against the reference', () => {
  it('yields events, then close() ends the loop', async () => {
    const { PspClient } = await import('../../src/index.js');
    const ref = await reference();
    const debug = vi.fn();
    const client = new PspClient({
      apiKey: ref.api_key,
      baseUrl: ref.base_url,
      logger: { debug },
      logLevel: 'debug',
    });
    const stream = client.events.stream();
    const it = stream[Symbol.asyncIterator]();
    const next = it.next();
    await until(() => expect(debug).toHaveBeenCalledWith('psp-sdk: event stream connected', { attempt: 1 }));
    const id = await createPayment(ref, 501);
    const ev = (await next).value as SseEvent;
    expect(ev.kind).toBe('payment.created');
    expect(ev.payload.id).toBe(id);
    stream.close();
    expect((await it.next()).done).toBe(true);
  });
});
