import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
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
