import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  InternalServerError,
  NotFoundError,
  PspResponseError,
  PspTimeoutError,
  RateLimitError,
} from '../../src/index.js';
import { client, PAYMENT_ID, stubFetch } from './helpers.js';

// A hostile or broken server, body side: a body that stalls after the headers, a body that never ends, a body of
// hundreds of MiB. Every call must settle within its timeout, hold a bounded amount of memory, and let go of the
// connection (cancel the body) when it gives up.

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

const outcome = (p: PromiseLike<unknown>) =>
  Promise.resolve(p).then(
    () => undefined,
    (e: unknown) => e,
  );

/** A body that sends `head`, then nothing, forever; `cancelled` tells whether the client let go of it. */
function stalled(head: string) {
  const state = { cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(new TextEncoder().encode(head));
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { body, state };
}

/** A body that never ends, 64 KiB per pull; `pulled` counts the bytes the client asked for. */
function endless() {
  const state = { pulled: 0, cancelled: false };
  const chunk = new Uint8Array(1 << 16).fill(0x20);
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      state.pulled += chunk.length;
      c.enqueue(chunk);
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { body, state };
}

describe('a body that stalls after the headers', () => {
  it('an error answer (404) still settles at the timeout, as its typed error, and the body is let go', async () => {
    const s = stalled('{"error":{"code":"not_found"');
    const { fetch } = stubFetch(() => new Response(s.body, { status: 404 }));
    const p = outcome(client(fetch).payments.get(PAYMENT_ID, { timeout: 2_000, maxRetries: 0 }));
    await vi.advanceTimersByTimeAsync(1_999);
    let settled = false;
    void p.then(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const e = await p;
    expect(e).toBeInstanceOf(NotFoundError);
    expect((e as NotFoundError).status).toBe(404);
    expect(s.state.cancelled).toBe(true);
  });

  it('a 5xx whose body stalls ends the call after the last attempt (retries are not stuck on it)', async () => {
    const { fetch, seen } = stubFetch(() => new Response(stalled('{"err').body, { status: 500 }));
    const p = outcome(client(fetch, { timeout: 1_000 }).payments.get(PAYMENT_ID));
    await vi.advanceTimersByTimeAsync(60_000);
    const e = await p;
    expect(e).toBeInstanceOf(InternalServerError);
    expect(seen).toHaveLength(3);
  });

  it('a 429 with a long Retry-After and a stalled body fails within the timeout', async () => {
    const { fetch } = stubFetch(
      () => new Response(stalled('{"error":').body, { status: 429, headers: { 'retry-after': '3600' } }),
    );
    const p = outcome(client(fetch).payments.create({ amount: 100 }, { timeout: 1_000, maxRetries: 0 }));
    await vi.advanceTimersByTimeAsync(1_000);
    const e = await p;
    // The attempt's timeout fired while its answer was read: a timeout, or the 429 itself, but settled.
    expect(e instanceof RateLimitError || e instanceof PspTimeoutError).toBe(true);
  });

  it('a success body cut off by the timeout is cancelled, so the connection is freed', async () => {
    const s = stalled('{"id":');
    const { fetch } = stubFetch(() => new Response(s.body, { status: 200 }));
    const p = outcome(client(fetch).payments.get(PAYMENT_ID, { timeout: 2_000, maxRetries: 0 }));
    await vi.advanceTimersByTimeAsync(2_000);
    expect(await p).toBeInstanceOf(PspTimeoutError);
    expect(s.state.cancelled).toBe(true);
  });
});

describe('a body that never ends, or is huge', () => {
  it('an answer over 8 MiB is refused with PspResponseError before it is read whole, and cancelled', async () => {
    const s = endless();
    const { fetch } = stubFetch(() => new Response(s.body, { status: 200 }));
    const e = await outcome(
      client(fetch).payments.create({ amount: 100 }, { idempotencyKey: 'order-7', maxRetries: 0 }),
    );
    expect(e).toBeInstanceOf(PspResponseError);
    expect((e as PspResponseError).status).toBe(200);
    expect((e as PspResponseError).message).toContain('over 8 MiB');
    expect((e as PspResponseError).idempotencyKey).toBe('order-7');
    expect(s.state.cancelled).toBe(true);
    // A few chunks of read-ahead at most, never the whole stream.
    expect(s.state.pulled).toBeLessThan(9 << 20);
  });

  it('an error answer that never ends still gives its typed error, without reading it all', async () => {
    const s = endless();
    const { fetch } = stubFetch(() => new Response(s.body, { status: 404 }));
    const e = await outcome(client(fetch).payments.get(PAYMENT_ID, { maxRetries: 0 }));
    expect(e).toBeInstanceOf(NotFoundError);
    expect(s.state.cancelled).toBe(true);
    expect(s.state.pulled).toBeLessThan(9 << 20);
  });
});
