import { afterEach, describe, expect, it, vi } from 'vitest';
import { WaitTimeoutError } from '../../src/index.js';
import type { RunningReference } from '../../src/reference/index.js';
import { merchant, PHONE, startRef } from '../client-integration/setup.js';
import { client, json, PAYMENT_ID, PAYOUT_ID, payment, payout, stubFetch } from '../client/helpers.js';

afterEach(() => vi.useRealTimers());

const enc = new TextEncoder();

/** A fake service: GETs answer the current status; /events is a stream the test writes to. */
function service(initial: string) {
  let status = initial;
  let sse: ReadableStreamDefaultController<Uint8Array> | undefined;
  const stub = stubFetch((req) => {
    const path = new URL(req.url).pathname;
    if (path.endsWith('/events')) {
      return new Response(
        new ReadableStream<Uint8Array>({
          start(c) {
            sse = c;
            c.enqueue(enc.encode(': connected\n\n'));
          },
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      );
    }
    if (path.includes('/payouts/')) return json(payout({ status }));
    return json(payment({ status }));
  });
  return {
    ...stub,
    set(s: string) {
      status = s;
    },
    emit(kind: string, payload: Record<string, unknown>) {
      sse?.enqueue(
        enc.encode(
          `event: ${kind}\ndata: ${JSON.stringify({ kind, payload, at: '2026-05-06T10:00:00Z' })}\n\n`,
        ),
      );
    },
    gets: () => stub.seen.filter((s) => !s.url.endsWith('/events')).length,
    streams: () => stub.seen.filter((s) => s.url.endsWith('/events')).length,
  };
}

describe('payments.waitFor and payouts.waitFor', () => {
  it('resolve at once when the status is already final', async () => {
    vi.useFakeTimers();
    const s = service('succeeded');
    const c = client(s.fetch);
    expect((await c.payments.waitFor(PAYMENT_ID)).status).toBe('succeeded');
    expect((await c.payouts.waitFor(PAYOUT_ID)).status).toBe('succeeded');
    expect(s.gets()).toBe(2);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('poll with backoff when no stream is open, and never open one', async () => {
    vi.useFakeTimers();
    const s = service('pending');
    const p = client(s.fetch).payouts.waitFor(PAYOUT_ID, { pollInterval: 1_000 });
    await vi.advanceTimersByTimeAsync(3_000);
    expect(s.gets()).toBe(3);
    s.set('failed');
    await vi.advanceTimersByTimeAsync(4_000);
    expect((await p).status).toBe('failed');
    expect(s.streams()).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('time out with WaitTimeoutError and the last payment, leaving no timer', async () => {
    vi.useFakeTimers();
    const s = service('pending');
    const p = client(s.fetch)
      .payments.waitFor(PAYMENT_ID, { timeout: 10_000 })
      .catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(10_000);
    const err = await p;
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect((err as WaitTimeoutError<{ status: string }>).last?.status).toBe('pending');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('listen on the app’s open stream (no second one) and wake on the matching event', async () => {
    vi.useFakeTimers();
    const s = service('pending');
    const c = client(s.fetch);
    const stream = c.events.stream();
    const seen: string[] = [];
    const reading = (async () => {
      for await (const ev of stream) seen.push(ev.kind);
    })();
    await vi.advanceTimersByTimeAsync(0);
    expect(s.streams()).toBe(1);
    const timersWithStream = vi.getTimerCount();
    const p = c.payments.waitFor(PAYMENT_ID, { until: ['succeeded'], pollInterval: 10 });
    await vi.advanceTimersByTimeAsync(5_000);
    // Listening, not polling every 10 ms.
    expect(s.gets()).toBe(1);
    s.set('succeeded');
    s.emit('payment.status_changed', { id: PAYMENT_ID, status: 'succeeded', previous_status: 'pending' });
    await vi.advanceTimersByTimeAsync(0);
    expect((await p).status).toBe('succeeded');
    expect(s.gets()).toBe(2);
    expect(s.streams()).toBe(1);
    expect(vi.getTimerCount()).toBe(timersWithStream);
    expect(seen).toEqual(['payment.status_changed']);
    stream.close();
    await reading;
    expect(vi.getTimerCount()).toBe(0);
  });

  it('reject with the signal reason on abort', async () => {
    vi.useFakeTimers();
    const s = service('pending');
    const ac = new AbortController();
    const p = client(s.fetch)
      .payments.waitFor(PAYMENT_ID, { signal: ac.signal })
      .catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(1_500);
    ac.abort(new Error('shutdown'));
    expect(((await p) as Error).message).toBe('shutdown');
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('waitFor against the reference', () => {
  let ref: RunningReference | undefined;
  afterEach(async () => {
    await ref?.close();
    ref = undefined;
  });

  it('sees a payment succeed through the app’s stream, and a payout fail by polling', async () => {
    ref = await startRef();
    const { client: c } = await merchant(ref, { logLevel: 'off' });
    const stream = c.events.stream();
    const kinds: string[] = [];
    const reading = (async () => {
      for await (const ev of stream) kinds.push(ev.kind);
    })();
    // The stream is live once it has carried an event.
    for (let i = 0; i < 200 && !kinds.includes('payment.created'); i++) {
      await c.payments.create({ amount: 1000 });
      await new Promise((r) => setTimeout(r, 10));
    }
    const { payment: p } = await c.payments.create({ amount: 1000 });
    // Polling alone would read again only after 30 s: the event is what ends this wait.
    const waiting = c.payments.waitFor(p.id, { until: ['succeeded'], timeout: 10_000 });
    await new Promise((r) => setTimeout(r, 20));
    await ref.control.succeedPayment(p.id);
    expect((await waiting).status).toBe('succeeded');
    stream.close();
    await reading;

    const { items } = await c.banks.list();
    const { payout: po } = await c.payouts.create({
      amount: 500,
      phone: PHONE,
      bank_id: items[0]!.member_id,
    });
    const polled = c.payouts.waitFor(po.id, { pollInterval: 5 });
    await ref.control.failPayout(po.id);
    expect((await polled).status).toBe('failed');
  });
});
