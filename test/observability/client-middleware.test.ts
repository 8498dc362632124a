import { createHmac } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type AttemptContext, type Middleware, PspClient, PspConnectionError } from '../../src/index.js';
import type { RunningReference } from '../../src/reference/index.js';
import { merchant, startRef } from '../client-integration/setup.js';
import {
  API_KEY,
  apiError,
  client,
  createPaymentResponse,
  json,
  PAYMENT_ID,
  payment,
  SIGNING_SECRET,
  stubFetch,
} from '../client/helpers.js';

afterEach(() => vi.useRealTimers());

describe('middleware around every attempt', () => {
  it('runs in order on every attempt, retries included, with the operation, attempt, key and url template', async () => {
    vi.useFakeTimers();
    const { fetch, seen } = stubFetch((_r, n) =>
      n === 1 ? apiError(503, 'unavailable') : json(createPaymentResponse(), 201),
    );
    const trail: string[] = [];
    const contexts: AttemptContext[] = [];
    const mw =
      (name: string): Middleware =>
      async (req, next, ctx) => {
        trail.push(`${name}:${ctx.attempt}`);
        if (name === 'a') contexts.push(ctx);
        return next(req);
      };
    const p = client(fetch, { middleware: [mw('a'), mw('b')] })
      .payments.create({ amount: 100 }, { idempotencyKey: 'order-1' })
      .withResponse();
    await vi.runAllTimersAsync();
    expect((await p).attempts).toBe(2);
    expect(trail).toEqual(['a:1', 'b:1', 'a:2', 'b:2']);
    expect(contexts).toEqual([
      {
        operation: 'payments.create',
        attempt: 1,
        idempotencyKey: 'order-1',
        urlTemplate: '/api/v1/public/payments',
      },
      {
        operation: 'payments.create',
        attempt: 2,
        idempotencyKey: 'order-1',
        urlTemplate: '/api/v1/public/payments',
      },
    ]);
    expect(seen).toHaveLength(2);
  });

  it('names each operation and its template; client.request() ids become {id}', async () => {
    const { fetch } = stubFetch((req) => {
      const path = new URL(req.url).pathname;
      if (path.endsWith('/cancel')) return json({ status: 'cancelled' });
      if (path.endsWith('/banks/sbp')) return json({ items: [] });
      return json(payment());
    });
    const ops: string[] = [];
    const c = client(fetch, {
      middleware: [
        (req, next, ctx) => {
          ops.push(`${ctx.operation} ${ctx.urlTemplate}`);
          return next(req);
        },
      ],
    });
    await c.payments.get(PAYMENT_ID);
    await c.payments.cancel(PAYMENT_ID);
    await c.banks.list();
    await c.request('GET', `/payments/${PAYMENT_ID}`);
    expect(ops).toEqual([
      'payments.get /api/v1/public/payments/{id}',
      'payments.cancel /api/v1/public/payments/{id}/cancel',
      'banks.list /api/v1/public/banks/sbp',
      'request /api/v1/public/payments/{id}',
    ]);
  });

  it('never shows the key or the signature to a middleware; they are set after it, over the bytes it sent', async () => {
    const { fetch, seen } = stubFetch(() => json(createPaymentResponse(), 201));
    const before: Record<string, string>[] = [];
    const after: Record<string, string>[] = [];
    const rewrite: Middleware = async (req, next) => {
      before.push(Object.fromEntries(req.headers));
      const body = { ...((await req.clone().json()) as object), metadata: { via: 'middleware ✓' } };
      const changed = new Request(req, { body: JSON.stringify(body) });
      changed.headers.set('x-request-id', 'req-1');
      const res = await next(changed);
      after.push(Object.fromEntries(changed.headers));
      return res;
    };
    await client(fetch, { signingSecret: SIGNING_SECRET, middleware: [rewrite] }).payments.create({
      amount: 100,
    });
    const sent = seen[0];
    expect(sent?.body).toBe('{"amount":100,"metadata":{"via":"middleware ✓"}}');
    const hex = createHmac('sha256', SIGNING_SECRET)
      .update(sent?.bytes ?? new Uint8Array())
      .digest('hex');
    expect(sent?.headers['x-psp-signature']).toBe(`sha256=${hex}`);
    expect(sent?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(sent?.headers['x-request-id']).toBe('req-1');
    expect(sent?.headers['idempotency-key']).toBeDefined();
    for (const h of [...before, ...after]) {
      expect(h.authorization).toBeUndefined();
      expect(h['x-psp-signature']).toBeUndefined();
      expect(h['idempotency-key']).toBeUndefined();
    }
    expect(before[0]?.['content-type']).toBe('application/json');
  });

  it('may answer alone: nothing leaves the process', async () => {
    const fetchFn = vi.fn<typeof fetch>();
    const double: Middleware = async () => json(payment({ status: 'succeeded' }));
    const c = new PspClient({
      apiKey: API_KEY,
      baseUrl: 'http://psp.test',
      fetch: fetchFn,
      middleware: [double],
    });
    expect((await c.payments.get(PAYMENT_ID)).status).toBe('succeeded');
    expect(fetchFn).not.toHaveBeenCalled();
  });

  it('may call next twice (the same request both times)', async () => {
    const { fetch, seen } = stubFetch(() => json(createPaymentResponse(), 201));
    const twice: Middleware = async (req, next) => {
      await next(req);
      return next(req);
    };
    await client(fetch, { signingSecret: SIGNING_SECRET, middleware: [twice] }).payments.create({
      amount: 7,
    });
    expect(seen).toHaveLength(2);
    expect(seen.map((s) => s.body)).toEqual(['{"amount":7}', '{"amount":7}']);
    expect(seen[0]?.headers['x-psp-signature']).toBe(seen[1]?.headers['x-psp-signature']);
  });

  it('a throwing middleware fails the attempt like a network error: retried when safe, its error the cause', async () => {
    vi.useFakeTimers();
    const boom = new Error('vault unreachable');
    let calls = 0;
    const flaky: Middleware = async (req, next) => {
      if (++calls === 1) throw boom;
      return next(req);
    };
    const { fetch, seen } = stubFetch(() => json(payment()));
    const p = client(fetch, { middleware: [flaky] })
      .payments.get(PAYMENT_ID)
      .withResponse();
    await vi.runAllTimersAsync();
    expect((await p).attempts).toBe(2);
    expect(seen).toHaveLength(1);

    // Not safe to repeat (a POST without a key): one attempt, and the error says why.
    const always: Middleware = async () => {
      throw boom;
    };
    const err = await client(fetch, { middleware: [always] })
      .request('POST', '/payments', { body: { amount: 1 } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PspConnectionError);
    expect((err as PspConnectionError).attempts).toBe(1);
    expect(((err as Error).cause as Error).message).toBe('vault unreachable');
    expect(seen).toHaveLength(1);
  });

  it('runs around the event stream connection, whose auth it never sees', async () => {
    const contexts: AttemptContext[] = [];
    const headers: Record<string, string>[] = [];
    const { fetch, seen } = stubFetch(
      () =>
        new Response(
          ': connected\n\nevent: payment.created\ndata: {"kind":"payment.created","payload":{"id":"p1","status":"pending","amount":1},"at":"2026-05-06T10:00:00Z"}\n\n',
          {
            headers: { 'content-type': 'text/event-stream' },
          },
        ),
    );
    const c = client(fetch, {
      middleware: [
        (req, next, ctx) => {
          contexts.push(ctx);
          req.headers.set('x-trace', 't-1');
          headers.push(Object.fromEntries(req.headers));
          return next(req);
        },
      ],
    });
    const stream = c.events.stream();
    for await (const ev of stream) {
      expect(ev.kind).toBe('payment.created');
      stream.close();
    }
    expect(contexts[0]).toEqual({
      operation: 'events.stream',
      attempt: 1,
      urlTemplate: '/api/v1/public/events',
    });
    expect(headers[0]?.authorization).toBeUndefined();
    expect(seen[0]?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(seen[0]?.headers['x-trace']).toBe('t-1');
  });
});

describe('middleware against the reference', () => {
  let ref: RunningReference;
  beforeAll(async () => {
    ref = await startRef();
  });
  afterAll(() => ref.close());

  it('a middleware that rewrites the body still gets 201 with require_signature on', async () => {
    const { m } = await merchant(ref);
    await ref.control.updateTerminal(m.terminal_id, { require_signature: true });
    const addOrder: Middleware = async (req, next) => {
      if (req.method !== 'POST') return next(req);
      const body = {
        ...((await req.clone().json()) as object),
        order_id: 'from-middleware',
        description: 'подпись ✓',
      };
      return next(new Request(req, { body: JSON.stringify(body) }));
    };
    const c = new PspClient({
      apiKey: m.api_key,
      baseUrl: ref.base_url,
      signingSecret: m.signing_secret,
      strict: true,
      middleware: [addOrder],
    });
    const res = await c.payments.create({ amount: 1000 }).withResponse();
    expect(res.response.status).toBe(201);
    expect(res.data.payment.order_id).toBe('from-middleware');
    // The GET is signed too (the empty body), and passes.
    expect((await c.payments.get(res.data.payment.id)).order_id).toBe('from-middleware');
  });
});
