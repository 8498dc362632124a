import { connect } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PspClient } from '../../../src/index.js';
import type { FaultRuleInput } from '../../../src/reference/faults/index.js';
import { type RunningReference, startReference } from '../../../src/reference/start.js';

// Faults over real HTTP: a reset destroys the socket with no byte of answer, and the rest of the server goes on.

let ref: RunningReference;
afterEach(() => ref?.close());

async function serve(faults: FaultRuleInput[] = [], seed?: number) {
  ref = await startReference({ port: 0, clock: 'manual', faults, seed });
  return ref;
}

/** One request on a raw socket: everything the server sent back, and how the socket ended. */
function raw(path: string, method = 'GET', body = ''): Promise<{ bytes: string; end: string }> {
  const url = new URL(ref.base_url);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    let bytes = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      bytes += chunk;
    });
    socket.on('error', (error: NodeJS.ErrnoException) => resolve({ bytes, end: error.code ?? 'error' }));
    socket.on('close', () => resolve({ bytes, end: 'close' }));
    socket.write(
      `${method} ${path} HTTP/1.1\r\nhost: ${url.host}\r\nauthorization: Bearer ${ref.api_key}\r\n` +
        `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  });
}

const get = (path: string) =>
  fetch(`${ref.base_url}${path}`, { headers: { authorization: `Bearer ${ref.api_key}` } });

describe('over HTTP', () => {
  it('reset: the socket is reset with no byte of answer; before creates nothing, after creates the payment', async () => {
    await serve([
      { kind: 'reset', count: 1 },
      { kind: 'reset', phase: 'after', count: 1 },
    ]);
    const before = await raw('/api/v1/public/payments', 'POST', '{"amount":100}');
    expect(before).toEqual({ bytes: '', end: 'ECONNRESET' });
    expect(ref.stats().payments).toBe(0);
    const after = await raw('/api/v1/public/payments', 'POST', '{"amount":100}');
    expect(after).toEqual({ bytes: '', end: 'ECONNRESET' });
    expect(ref.stats().payments).toBe(1);
    // The server goes on: the next request on a new connection is answered.
    expect((await get('/api/v1/public/banks/sbp')).status).toBe(200);
  });

  it('a fetch through the reset rejects with a TypeError (a network error), as against a real dropped connection', async () => {
    await serve([{ kind: 'reset', phase: 'after', match: { method: 'POST' } }]);
    const err = await fetch(`${ref.base_url}/api/v1/public/payments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ref.api_key}`, 'content-type': 'application/json' },
      body: '{"amount":100}',
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect(ref.stats().payments).toBe(1);
  });

  it('timeout: nothing comes back for delay_ms, then the socket is reset', async () => {
    await serve([{ kind: 'timeout', delay_ms: 20, phase: 'after' }]);
    expect(await raw('/api/v1/public/payments', 'POST', '{"amount":100}')).toEqual({
      bytes: '',
      end: 'ECONNRESET',
    });
    expect(ref.stats().payments).toBe(1);
  });

  it('a client that leaves during a timeout ends the wait: close() does not wait for it', async () => {
    await serve([{ kind: 'timeout' }]);
    const client = new AbortController();
    const res = fetch(`${ref.base_url}/api/v1/public/banks/sbp`, {
      headers: { authorization: `Bearer ${ref.api_key}` },
      signal: client.signal,
    }).catch((e: unknown) => e);
    await vi.waitFor(async () => expect((await ref.control.listFaults()).items[0]!.hits).toBe(1), {
      timeout: 20_000,
      interval: 2,
    });
    client.abort();
    expect(await res).toBeInstanceOf(Error);
    await ref.close();
  });

  it('error and latency answer over HTTP with the spec error body and the real answer', async () => {
    await serve([
      { kind: 'error', status: 429, match: { path: '/api/v1/public/banks/sbp' }, count: 1 },
      { kind: 'latency', delay_ms: 5, phase: 'after' },
    ]);
    const limited = await get('/api/v1/public/banks/sbp');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(await limited.json()).toMatchObject({ error: { code: 'rate_limited' } });
    const late = await get('/api/v1/public/banks/sbp');
    expect(late.status).toBe(200);
    expect((await ref.control.listFaults()).items.map((r) => r.hits)).toEqual([1, 1]);
  });

  it('the control surface is never faulted, over HTTP either', async () => {
    await serve([{ kind: 'reset' }]);
    const res = await fetch(`${ref.base_url}/_simulator/faults`, {
      headers: { authorization: `Bearer ${ref.admin_token}` },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { items: unknown[] }).items).toHaveLength(1);
  });
});

// Each makes a few hundred requests: room for a loaded machine.
describe('the client idempotency under an after-phase reset at probability 0.3 (issue 15)', {
  timeout: 120_000,
}, () => {
  it('100 PspClient creates make exactly 100 payments, each returned once, never more', async () => {
    await serve([{ kind: 'reset', phase: 'after', probability: 0.3, match: { method: 'POST' } }], 20_261_124);
    // Every attempt of a create carries the same Idempotency-Key, so a retry after a reset replays the committed
    // payment instead of making a second one. No backoff: the test spends its time on requests, not sleeps.
    const psp = new PspClient({
      apiKey: ref.api_key,
      baseUrl: ref.base_url,
      maxRetries: 10,
      maxRetryDelay: 0,
    });
    const ids: string[] = [];
    for (let i = 0; i < 100; i++) {
      const { payment } = await psp.payments.create({ amount: 1000 + i, order_id: `order-${i}` });
      expect(payment.amount).toBe(1000 + i);
      ids.push(payment.id);
    }
    const [rule] = (await ref.control.listFaults()).items;
    // The rule broke about 30 % of the 100 + resets POSTs: the retries ran, and replayed.
    expect(rule!.hits).toBeGreaterThan(20);
    expect(new Set(ids).size).toBe(100);
    expect(ref.stats()).toMatchObject({ payments: 100, idempotency_keys: 100 });
  });

  it('without the key, the same faults duplicate payments: the test above can fail', async () => {
    await serve([{ kind: 'reset', phase: 'after', probability: 0.3, match: { method: 'POST' } }], 20_261_124);
    let created = 0;
    for (let i = 0; i < 100; i++) {
      // A naive client: a POST with no Idempotency-Key, retried on a network error.
      for (;;) {
        const r = await fetch(`${ref.base_url}/api/v1/public/payments`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ref.api_key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ amount: 1000 + i }),
        }).catch(() => undefined);
        if (r) {
          await r.arrayBuffer();
          created++;
          break;
        }
      }
    }
    expect(created).toBe(100);
    expect(ref.stats().payments).toBeGreaterThan(100);
  });
});
