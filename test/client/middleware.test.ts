import { describe, expect, it } from 'vitest';
import { type AttemptContext, bodyBytes, type Middleware, runChain } from '../../src/client/middleware.js';

const ctx: AttemptContext = {
  operation: 'payments.get',
  attempt: 1,
  urlTemplate: '/api/v1/public/payments/{id}',
};

describe('runChain', () => {
  it('runs the middleware in order around send, each seeing what the previous one passed', async () => {
    const order: string[] = [];
    const tag =
      (name: string): Middleware =>
      async (req, next) => {
        order.push(`${name}>`);
        req.headers.append('x-trail', name);
        const res = await next(req);
        order.push(`<${name}`);
        return res;
      };
    let sent: Request | undefined;
    const res = await runChain([tag('a'), tag('b')], new Request('http://x/'), ctx, async (r) => {
      sent = r;
      order.push('send');
      return new Response('ok');
    });
    expect(await res.text()).toBe('ok');
    expect(order).toEqual(['a>', 'b>', 'send', '<b', '<a']);
    expect(sent?.headers.get('x-trail')).toBe('a, b');
  });

  it('lets a middleware answer alone (send never runs) or call next twice', async () => {
    let sends = 0;
    const send = async () => new Response(String(++sends));
    const alone: Middleware = async () => new Response('canned');
    expect(await (await runChain([alone], new Request('http://x/'), ctx, send)).text()).toBe('canned');
    expect(sends).toBe(0);
    const twice: Middleware = async (req, next) => {
      await next(req);
      return next(req);
    };
    expect(await (await runChain([twice], new Request('http://x/'), ctx, send)).text()).toBe('2');
  });

  it('turns a synchronous throw into a rejection with the same error', async () => {
    const boom = new Error('boom');
    const mw = (() => {
      throw boom;
    }) as unknown as Middleware;
    await expect(runChain([mw], new Request('http://x/'), ctx, async () => new Response())).rejects.toBe(
      boom,
    );
  });

  it('refuses a request a middleware moved to another origin (scheme, host or port): send never runs', async () => {
    let sends = 0;
    const send = async () => new Response(String(++sends));
    const to =
      (url: string): Middleware =>
      (req, next) =>
        next(new Request(url, { headers: req.headers }));
    const from = new Request('http://psp.test:8080/api/v1/public/banks/sbp');
    for (const url of ['https://psp.test:8080/x', 'http://evil.test:8080/x', 'http://psp.test:8081/x']) {
      await expect(runChain([to(url)], from, { ...ctx, attempt: 2 }, send)).rejects.toMatchObject({
        name: 'PspApiError',
        status: 0,
        code: 'unexpected_redirect',
        attempts: 2,
      });
    }
    expect(sends).toBe(0);
    // The same origin, another path: still ours.
    await runChain([to('http://psp.test:8080/elsewhere')], from, ctx, send);
    expect(sends).toBe(1);
  });

  it('passes the context to every middleware', async () => {
    const seen: AttemptContext[] = [];
    const mw: Middleware = (req, next, c) => {
      seen.push(c);
      return next(req);
    };
    await runChain([mw, mw], new Request('http://x/'), ctx, async () => new Response());
    expect(seen).toEqual([ctx, ctx]);
  });
});

describe('bodyBytes', () => {
  it('reads the exact bytes without using the request up', async () => {
    const req = new Request('http://x/', { method: 'POST', body: new Uint8Array([0xff, 0x00, 0x41]) });
    expect(await bodyBytes(req)).toEqual(new Uint8Array([0xff, 0x00, 0x41]));
    expect(await bodyBytes(req)).toEqual(new Uint8Array([0xff, 0x00, 0x41]));
    expect(await bodyBytes(new Request('http://x/'))).toBeUndefined();
  });
});
