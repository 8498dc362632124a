import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PspAbortError, PspClient, PspConnectionError, PspTimeoutError } from '../../src/index.js';
import { BASE_URL, client, connectionRefused, json, PAYMENT_ID, payment, stubFetch } from './helpers.js';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

/** A server that never answers; it only notices the request's signal. */
const hanging = () =>
  stubFetch(
    (req) =>
      new Promise<Response>((_, reject) => {
        req.signal.addEventListener('abort', () => reject(req.signal.reason));
      }),
  );

const outcome = (p: PromiseLike<unknown>) =>
  Promise.resolve(p).then(
    () => undefined,
    (e: unknown) => e,
  );

describe('timeout, abort and connection failure are distinct', () => {
  it('an attempt over its timeout is a PspTimeoutError (a PspConnectionError, not an abort)', async () => {
    const { fetch, seen } = hanging();
    const p = outcome(client(fetch).payments.get(PAYMENT_ID, { timeout: 3_000, maxRetries: 0 }));
    await vi.advanceTimersByTimeAsync(2_999);
    expect(seen).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    const e = await p;
    expect(e).toBeInstanceOf(PspTimeoutError);
    expect(e).toBeInstanceOf(PspConnectionError);
    expect(e).not.toBeInstanceOf(PspAbortError);
    expect((e as Error).message).toContain('timed out after 3000 ms');
  });

  it('timeouts are per attempt and retried', async () => {
    const { fetch, seen } = stubFetch((req, n) =>
      n < 3
        ? new Promise<Response>((_, reject) =>
            req.signal.addEventListener('abort', () => reject(req.signal.reason)),
          )
        : json(payment()),
    );
    const p = client(fetch, { timeout: 1_000 }).payments.get(PAYMENT_ID).withResponse();
    await vi.runAllTimersAsync();
    const r = await p;
    expect(seen).toHaveLength(3);
    expect(r.attempts).toBe(3);
  });

  it('a body that stalls after the headers times out too', async () => {
    const { fetch } = stubFetch(
      () =>
        new Response(
          new ReadableStream({
            start(c) {
              c.enqueue(new TextEncoder().encode('{"id":'));
            },
          }),
          { status: 200 },
        ),
    );
    const p = outcome(client(fetch).payments.get(PAYMENT_ID, { timeout: 2_000 }));
    await vi.advanceTimersByTimeAsync(1_999);
    let settled = false;
    void p.then(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const e = await p;
    expect(e).toBeInstanceOf(PspTimeoutError);
  });

  it("the caller's signal is a PspAbortError and is never retried", async () => {
    const { fetch, seen } = hanging();
    const ac = new AbortController();
    const p = outcome(client(fetch).payments.get(PAYMENT_ID, { signal: ac.signal }));
    await vi.advanceTimersByTimeAsync(100);
    ac.abort();
    const e = await p;
    expect(e).toBeInstanceOf(PspAbortError);
    expect(e).not.toBeInstanceOf(PspConnectionError);
    await vi.runAllTimersAsync();
    expect(seen).toHaveLength(1);
  });

  it('an already-aborted signal sends nothing', async () => {
    const { fetch, seen } = stubFetch(() => json(payment()));
    const e = await outcome(client(fetch).payments.get(PAYMENT_ID, { signal: AbortSignal.abort() }));
    expect(e).toBeInstanceOf(PspAbortError);
    expect(seen).toHaveLength(0);
  });

  it('an abort on a create carries the key, so the caller can resend safely', async () => {
    const { fetch } = hanging();
    const ac = new AbortController();
    const p = outcome(
      client(fetch).payments.create({ amount: 1 }, { signal: ac.signal, idempotencyKey: 'ab-1' }),
    );
    await vi.advanceTimersByTimeAsync(10);
    ac.abort();
    const e = (await p) as PspAbortError;
    expect(e.idempotencyKey).toBe('ab-1');
    expect(e.attempts).toBe(1);
  });

  it('a network failure is a PspConnectionError (not a timeout), with the cause kept', async () => {
    const { fetch } = stubFetch(() => connectionRefused());
    const p = outcome(client(fetch, { maxRetries: 0 }).payments.get(PAYMENT_ID));
    const e = (await p) as PspConnectionError;
    expect(e).toBeInstanceOf(PspConnectionError);
    expect(e).not.toBeInstanceOf(PspTimeoutError);
    // A redacted copy of the chain: name, message and code survive.
    expect((e.cause as Error).name).toBe('TypeError');
    expect(((e.cause as Error).cause as { code?: string }).code).toBe('ECONNREFUSED');
    // The message says where and why, not fetch's own "fetch failed".
    expect(e.message).toBe(
      `GET /payments/${PAYMENT_ID} got no answer from ${new URL(BASE_URL).origin}: connect ECONNREFUSED 127.0.0.1:4999`,
    );
  });

  it('a refused connection on a real socket names the origin and the cause, and no secret', async () => {
    vi.useRealTimers();
    // A port nothing listens on: bind one, close it, connect there.
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    await new Promise((r) => server.close(r));
    const apiKey = 'sk_test_ab12cd_connectionsecret';
    const c = new PspClient({ apiKey, baseUrl: `http://127.0.0.1:${port}/prefix`, maxRetries: 0 });
    const e = (await outcome(c.payments.get(PAYMENT_ID))) as unknown as PspConnectionError;
    expect(e).toBeInstanceOf(PspConnectionError);
    expect(e.message).toBe(
      `GET /payments/${PAYMENT_ID} got no answer from http://127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}`,
    );
    expect(`${e.message}${JSON.stringify(e)}${inspect(e)}`).not.toContain('connectionsecret');
  });
});
