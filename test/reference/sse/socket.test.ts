import { connect, type Socket } from 'node:net';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { afterEach, describe, expect, test } from 'vitest';
import { listenNode, type NodeServer } from '../../../src/reference/adapters/node-http.js';
import { ManualClock } from '../../../src/reference/domain/clock.js';
import { EventBus } from '../../../src/reference/domain/events.js';
import { createEventStreamHub, type EventStreamHub } from '../../../src/reference/sse/index.js';
import { startReference, type RunningReference } from '../../../src/reference/start.js';
import { until } from '../../support/sse-server.js';
import { MERCHANT, payment, SHOP_A, T0 } from '../webhooks/helpers.js';
import { feed } from './helpers.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Reads an SSE response body in the background, collecting events and comments. */
function collect(res: Response) {
  const events: EventSourceMessage[] = [];
  const comments: string[] = [];
  let ended = false;
  const parser = createParser({ onEvent: (e) => events.push(e), onComment: (c) => comments.push(c.trim()) });
  const reader = res.body!.getReader();
  const done = (async () => {
    await feed(reader, parser);
    ended = true;
  })();
  cleanups.push(() => reader.cancel().catch(() => {}));
  return {
    events,
    comments,
    done,
    get ended() {
      return ended;
    },
  };
}

describe('the SSE stream over real sockets, through the reference', () => {
  let ref: RunningReference;

  async function open(key = ref.api_key) {
    const res = await fetch(`${ref.base_url}/api/v1/public/events`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    return collect(res);
  }

  async function api(method: string, path: string, token: string, body?: unknown) {
    const res = await fetch(`${ref.base_url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  }

  test('connected, the events of the merchant, ping on the service clock, and replaced', async () => {
    ref = await startReference({ port: 0, clock: 'manual' });
    cleanups.push(() => ref.close());
    const first = await open();
    await until(() => expect(first.comments).toEqual(['connected']));

    const created = await api('POST', '/api/v1/public/payments', ref.api_key, {
      amount: 2500,
      order_id: 'SSE-1',
    });
    expect(created.status).toBe(201);
    const id = created.body.payment.id;
    await until(() => expect(first.events.length).toBe(1));
    expect(first.events[0]!.event).toBe('payment.created');
    expect(JSON.parse(first.events[0]!.data)).toMatchObject({
      kind: 'payment.created',
      payload: { id, status: 'pending', amount: 2500, currency: 'RUB', order_id: 'SSE-1' },
    });
    await api('POST', `/_simulator/payments/${id}/succeed`, ref.admin_token);
    await until(() => expect(first.events.at(-1)?.event).toBe('payment.status_changed'));
    expect(JSON.parse(first.events.at(-1)!.data).payload).toMatchObject({ id, status: 'succeeded' });

    // Another merchant's events never show up here.
    const other = await api('POST', '/_cabinet/merchants', ref.admin_token, {});
    const second = await open(other.body.api_key);
    await api('POST', '/api/v1/public/payments', other.body.api_key, { amount: 100 });
    await until(() => expect(second.events.length).toBe(1));
    const seenBefore = first.events.length;

    await api('POST', '/_simulator/clock/advance', ref.admin_token, { seconds: 25 });
    await until(() => expect(first.comments).toEqual(['connected', 'ping']));
    expect(first.events).toHaveLength(seenBefore);

    const replacement = await open();
    await first.done;
    expect(first.comments).toEqual(['connected', 'ping', 'replaced']);
    await until(() => expect(replacement.comments).toEqual(['connected']));
    expect(ref.control).toBeDefined();
  });
});

describe('a slow reader over a real socket', () => {
  let hub: EventStreamHub;
  let server: NodeServer;

  test('it loses messages (counted) while a fast reader gets every one, and buffered bytes stay under the cap', async () => {
    const bus = new EventBus();
    const bufferBytes = 256 * 1024;
    hub = createEventStreamHub({ bus, clock: new ManualClock(T0), bufferSize: 256, bufferBytes });
    cleanups.push(() => hub.close());
    server = await listenNode(
      (req) =>
        Promise.resolve(
          new Response(
            hub.open({
              keyId: new URL(req.url).searchParams.get('k')!,
              merchantId: MERCHANT,
              signal: req.signal,
            }),
            {
              headers: { 'content-type': 'text/event-stream' },
            },
          ),
        ),
      { port: 0 },
    );
    cleanups.push(() => server.close());

    // The slow client: a raw socket that reads the head of the answer, then stops reading.
    const slow: Socket = connect(server.port, '127.0.0.1');
    cleanups.push(() => slow.destroy());
    await new Promise<void>((resolve) => slow.once('connect', () => resolve()));
    slow.write(`GET /events?k=slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    await new Promise<void>((resolve) => slow.once('data', () => resolve()));
    slow.pause();

    const fast = collect(await fetch(`${server.url}/events?k=fast`));
    await until(() => expect(fast.comments).toEqual(['connected']));

    // Large messages fill the socket buffers quickly: ~8 KB each.
    const p = payment({ status: 'pending', order_id: 'x'.repeat(8 * 1024) });
    const total = 1_500;
    let maxBuffered = 0;
    for (let i = 0; i < total; i++) {
      bus.publish({
        type: 'payment.created',
        at: T0 + i,
        merchantId: MERCHANT,
        shopId: SHOP_A,
        payment: p,
        webhookUrl: null,
      });
      maxBuffered = Math.max(maxBuffered, hub.stats().bufferedBytes);
      // Let the fast reader drain between small batches, as a real event rate would.
      if (i % 8 === 7) await new Promise((r) => setImmediate(r));
    }
    await until(() => expect(fast.events.length).toBe(total));
    const { dropped, connections } = hub.stats();
    expect(connections).toBe(2);
    expect(dropped).toBeGreaterThan(0);
    expect(dropped).toBeLessThan(total);
    // Two streams, each bounded by its own cap: the slow one filled its cap, and the total never passed both.
    expect(maxBuffered).toBeGreaterThan(bufferBytes - 9 * 1024);
    expect(maxBuffered).toBeLessThanOrEqual(2 * bufferBytes);
    // The fast reader saw the events in order, none missing.
    const ats = fast.events.map((e) => Date.parse(JSON.parse(e.data).at) - T0);
    expect(ats).toEqual(Array.from({ length: total }, (_, i) => i));
  });
});
