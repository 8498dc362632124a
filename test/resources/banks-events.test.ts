import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from '../../src/index.js';
import {
  API_KEY,
  BANKS,
  client,
  json,
  PAYMENT_ID,
  payment,
  SIGNING_SECRET,
  stubFetch,
} from '../client/helpers.js';

afterEach(() => vi.useRealTimers());

describe('banks.list', () => {
  it('serves the directory from memory for the TTL (default 1 hour), then refetches', async () => {
    vi.useFakeTimers();
    const { fetch, seen } = stubFetch(() => json(BANKS));
    const c = client(fetch);
    expect((await c.banks.list()).items).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(3_599_000);
    await c.banks.list();
    expect(seen).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1_000);
    await c.banks.list();
    expect(seen).toHaveLength(2);
  });

  it('refresh: true bypasses and refills; clearCache forgets; ttl 0 disables', async () => {
    const { fetch, seen } = stubFetch(() => json(BANKS));
    const c = client(fetch);
    await c.banks.list();
    await c.banks.list({ refresh: true });
    await c.banks.list();
    expect(seen).toHaveLength(2);
    c.banks.clearCache();
    await c.banks.list();
    expect(seen).toHaveLength(3);
    const off = stubFetch(() => json(BANKS));
    const c0 = client(off.fetch, { banksCacheTtl: 0 });
    await c0.banks.list();
    await c0.banks.list();
    expect(off.seen).toHaveLength(2);
  });

  it('each caller gets its own copy; a failed fetch is not cached', async () => {
    let fail = true;
    const { fetch } = stubFetch(() =>
      fail ? json({ error: { code: 'x', message: 'y' } }, 400) : json(BANKS),
    );
    const c = client(fetch);
    await expect(c.banks.list()).rejects.toThrow();
    fail = false;
    const a = await c.banks.list();
    (a.items[0] as { name: string }).name = 'changed';
    a.items.pop();
    const b = await c.banks.list();
    expect(b.items).toHaveLength(2);
    expect(b.items[0]?.name).toBe('Сбербанк');
  });
});

describe('events.stream', () => {
  it('calls the stream with the events URL and fresh auth + empty-body signature headers', async () => {
    const sse =
      ': connected\n\nevent: payment.created\ndata: {"kind":"payment.created","payload":{"id":"p1","status":"pending","amount":5},"at":"2026-05-06T10:00:00.000Z"}\n\n';
    const { fetch, seen } = stubFetch(
      () => new Response(sse, { status: 200, headers: { 'content-type': 'text/event-stream' } }),
    );
    const c = client(fetch, { signingSecret: SIGNING_SECRET });
    const stream = c.events.stream();
    let first: unknown;
    for await (const ev of stream) {
      first = ev;
      break;
    }
    stream.close();
    expect(first).toMatchObject({ kind: 'payment.created', payload: { id: 'p1' } });
    expect(seen[0]?.url).toBe('http://psp.test/api/v1/public/events');
    expect(seen[0]?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(seen[0]?.headers['x-psp-signature']).toBe(
      `sha256=${createHmac('sha256', SIGNING_SECRET).update('').digest('hex')}`,
    );
  });
});

describe('logger', () => {
  it('gets one debug line per attempt and an info line per retry, with allow-listed headers only', async () => {
    vi.useFakeTimers();
    const lines: Array<[string, string, Record<string, unknown> | undefined]> = [];
    const logger: Logger = {
      debug: (m, meta) => lines.push(['debug', m, meta]),
      info: (m, meta) => lines.push(['info', m, meta]),
    };
    const { fetch } = stubFetch((_, n) =>
      n === 1
        ? json({ error: { code: 'x', message: 'y' } }, 503)
        : json(payment(), 200, { 'set-cookie': 'a=b' }),
    );
    const p = client(fetch, { logger, logLevel: 'debug' }).payments.get(PAYMENT_ID);
    await vi.runAllTimersAsync();
    await p;
    expect(lines.map(([l, m]) => `${l} ${m}`)).toEqual([
      'debug psp-sdk: request',
      'info psp-sdk: retrying',
      'debug psp-sdk: request',
      'debug psp-sdk: response',
    ]);
    expect(lines[1]?.[2]).toMatchObject({ attempt: 2, reason: 'HTTP 503' });
    expect(lines[3]?.[2]).toMatchObject({ status: 200, attempts: 2 });
    expect(lines[3]?.[2]?.headers).toEqual({ 'content-type': 'application/json' });
  });

  it('a logger that throws does not break the call', async () => {
    const { fetch } = stubFetch(() => json(payment()));
    const logger: Logger = {
      debug: () => {
        throw new Error('broken logger');
      },
    };
    expect((await client(fetch, { logger }).payments.get(PAYMENT_ID)).id).toBe(PAYMENT_ID);
  });
});
