import { createHmac } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AttemptContext } from '../../src/client/middleware.js';
import { createSendStep } from '../../src/client/send.js';
import type { Middleware } from '../../src/index.js';
import { API_KEY, BANKS, client, json, SIGNING_SECRET, stubFetch } from './helpers.js';

// Calls and the event stream leave through one send step (src/client/send.ts): the same headers before the
// middleware, the same secrets after it, over the exact bytes the last middleware left.

const SSE = ': connected\n\n';
const sign = (body: string) => `sha256=${createHmac('sha256', SIGNING_SECRET).update(body).digest('hex')}`;

describe('one send step for calls and the event stream', () => {
  it('a middleware sees the user agent and never the key, on a call and on a stream connection alike', async () => {
    const seenByMiddleware: Record<string, string>[] = [];
    const peek: Middleware = (req, next) => {
      seenByMiddleware.push(Object.fromEntries(req.headers));
      req.headers.set('x-trace', 't1');
      return next(req);
    };
    const { fetch, seen } = stubFetch((req) =>
      req.url.endsWith('/events')
        ? new Response(SSE, { status: 200, headers: { 'content-type': 'text/event-stream' } })
        : json(BANKS),
    );
    const c = client(fetch, { signingSecret: SIGNING_SECRET, middleware: [peek] });
    await c.banks.list();
    const stream = c.events.stream({ maxRetries: 0 });
    await stream[Symbol.asyncIterator]()
      .next()
      .catch(() => undefined);
    stream.close();

    expect(seen.map((s) => new URL(s.url).pathname)).toEqual([
      '/api/v1/public/banks/sbp',
      '/api/v1/public/events',
    ]);
    for (const [i, sent] of seen.entries()) {
      expect(seenByMiddleware[i]?.['user-agent']).toMatch(/^psp-sdk\//);
      expect(seenByMiddleware[i]).not.toHaveProperty('authorization');
      expect(seenByMiddleware[i]).not.toHaveProperty('x-psp-signature');
      expect(sent.headers['user-agent']).toBe(seenByMiddleware[i]?.['user-agent']);
      expect(sent.headers['x-trace']).toBe('t1');
      expect(sent.headers.authorization).toBe(`Bearer ${API_KEY}`);
      expect(sent.headers['x-psp-signature']).toBe(sign(''));
    }
  });
});

describe("the headers every request carries are the send step's", () => {
  const context = (operation: AttemptContext['operation']): AttemptContext => ({
    operation,
    attempt: 1,
    urlTemplate: '',
  });
  const step = (fetchFn: typeof fetch, middleware: Middleware[] = []) =>
    createSendStep({
      fetch: fetchFn,
      headers: () => ({ authorization: 'Bearer k' }),
      baseUrl: 'http://psp.test',
      userAgent: 'psp-sdk/9.9.9',
      middleware,
    });

  it('a call accepts JSON, a body is JSON, the stream accepts an event stream uncached; all carry the user agent', async () => {
    const { fetch, seen } = stubFetch(() => json({}));
    const send = step(fetch);
    const url = 'http://psp.test/api/v1/public/x';
    await send(new Request(url, { redirect: 'manual' }), context('banks.list'));
    await send(
      new Request(url, { method: 'POST', redirect: 'manual', body: '{}' }),
      context('request'),
      '{}',
    );
    await send(new Request(url, { redirect: 'manual' }), context('events.stream'));
    expect(seen.map((s) => s.headers)).toEqual([
      { accept: 'application/json', 'user-agent': 'psp-sdk/9.9.9', authorization: 'Bearer k' },
      {
        accept: 'application/json',
        'content-type': 'application/json',
        'user-agent': 'psp-sdk/9.9.9',
        authorization: 'Bearer k',
      },
      {
        accept: 'text/event-stream',
        'cache-control': 'no-cache',
        'user-agent': 'psp-sdk/9.9.9',
        authorization: 'Bearer k',
      },
    ]);
  });

  it('they are set before the middleware, which may change them', async () => {
    const { fetch, seen } = stubFetch(() => json({}));
    const mine: Middleware = (req, next) => {
      req.headers.set('user-agent', `${req.headers.get('user-agent')} my-app/1.0`);
      return next(req);
    };
    await step(fetch, [mine])(
      new Request('http://psp.test/a', { redirect: 'manual' }),
      context('banks.list'),
    );
    expect(seen[0]?.headers['user-agent']).toBe('psp-sdk/9.9.9 my-app/1.0');
  });

  it('no other file of src/client sets the accept, content-type, user-agent or cache-control header', () => {
    // `h.set('accept', ...)`, `headers['user-agent'] = ...`, `{ accept: '...' }`: reading an answer's header is fine.
    const sets =
      /(\.set\(\s*|\[\s*)['"`](accept|content-type|user-agent|cache-control)['"`]|(\baccept|['"`](content-type|user-agent|cache-control)['"`])\s*:\s*['"`]/i;
    const dir = join(import.meta.dirname, '../../src/client');
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    expect(files).toContain('transport.ts');
    expect(files.filter((f) => f !== 'send.ts' && sets.test(readFileSync(join(dir, f), 'utf8')))).toEqual([]);
    expect(sets.test(readFileSync(join(dir, 'send.ts'), 'utf8'))).toBe(true);
  });
});
