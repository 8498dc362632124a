import { propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PspClient } from '../../src/index.js';
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
} from './helpers.js';
import { otel } from './otel-helpers.js';

let registered: ReturnType<typeof otel> | undefined;
afterEach(() => {
  registered?.unregister();
  registered = undefined;
  vi.useRealTimers();
});

/** Everything a span or a data point carries, as one string. */
function everything(o: ReturnType<typeof otel>, points: unknown[]): string {
  return JSON.stringify([o.spans().map((s) => [s.name, s.attributes, s.status, s.events, s.links]), points]);
}

describe('OpenTelemetry through the client', () => {
  it('with a globally registered SDK: a call span and a CLIENT span per attempt, retries counted', async () => {
    vi.useFakeTimers();
    const o = otel();
    o.register();
    registered = o;
    const { fetch } = stubFetch((_r, n) => (n === 1 ? apiError(503, 'unavailable') : json(payment())));
    const p = client(fetch).payments.get(PAYMENT_ID);
    await vi.runAllTimersAsync();
    await p;
    const spans = o.spans();
    expect(spans.map((s) => s.name)).toEqual([
      'GET /api/v1/public/payments/{id}',
      'GET /api/v1/public/payments/{id}',
      'payments.get',
    ]);
    const [first, second, call] = spans;
    expect(call?.attributes).toEqual({ 'psp.operation': 'payments.get' });
    expect(first?.kind).toBe(SpanKind.CLIENT);
    expect(first?.attributes).toEqual({
      'http.request.method': 'GET',
      'url.template': '/api/v1/public/payments/{id}',
      'server.address': 'psp.test',
      'server.port': 80,
      'http.response.status_code': 503,
      'error.type': '503',
    });
    expect(second?.attributes['http.request.resend_count']).toBe(1);
    expect(second?.attributes['http.response.status_code']).toBe(200);
    expect(second?.status.code).toBe(SpanStatusCode.UNSET);
    for (const a of [first, second]) expect(a?.parentSpanContext?.spanId).toBe(call?.spanContext().spanId);
    const { points } = await o.durations();
    expect(points.map((p) => p.attributes['http.response.status_code']).sort()).toEqual([200, 503]);
    // No id, key, secret or body anywhere.
    const all = everything(o, points);
    for (const s of [PAYMENT_ID, API_KEY, 'sk_test', 'Bearer', 'unavailable']) expect(all).not.toContain(s);
  });

  it('with providers given in the options, a failed create: error.type on both spans, nothing secret', async () => {
    const o = otel();
    const { fetch } = stubFetch(() => apiError(401, 'unauthorized', `key ${API_KEY} is revoked`));
    const c = client(fetch, {
      signingSecret: SIGNING_SECRET,
      telemetry: { tracerProvider: o.tracerProvider, meterProvider: o.meterProvider },
      logLevel: 'off',
    });
    await expect(c.payments.create({ amount: 100, description: 'secret order' })).rejects.toThrow();
    const [attempt, call] = o.spans();
    expect(attempt?.name).toBe('POST /api/v1/public/payments');
    expect(attempt?.attributes['error.type']).toBe('401');
    expect(call?.attributes['error.type']).toBe('AuthenticationError');
    expect(call?.status).toEqual({ code: SpanStatusCode.ERROR });
    const { points } = await o.durations();
    const all = everything(o, points);
    for (const s of [API_KEY, SIGNING_SECRET, 'revoked', 'secret order', 'idempotency'])
      expect(all).not.toContain(s);
  });

  it('names a network failure by its error type and a client.request() path by its template', async () => {
    const o = otel();
    const c = new PspClient({
      apiKey: API_KEY,
      baseUrl: 'https://psp.example.com:8443/prefix',
      fetch: async () => {
        throw new TypeError('fetch failed');
      },
      maxRetries: 0,
      telemetry: { tracerProvider: o.tracerProvider },
      logLevel: 'off',
    });
    await expect(c.request('GET', `/payments/${PAYMENT_ID}`)).rejects.toThrow();
    const [attempt, call] = o.spans();
    expect(attempt?.name).toBe('GET /api/v1/public/payments/{id}');
    expect(attempt?.attributes).toMatchObject({
      'server.address': 'psp.example.com',
      'server.port': 8443,
      'error.type': 'TypeError',
    });
    expect(call?.attributes['psp.operation']).toBe('request');
    expect(call?.attributes['error.type']).toBe('PspConnectionError');
  });

  it('a client.request() path: only the API words stay; every other segment is {id} unless the caller names it', async () => {
    // Issue 23.14: a non-UUID segment (an order number, an e-mail) went verbatim into span names, url.template
    // and metric labels: unbounded, and personal data.
    const o = otel();
    const seen: string[] = [];
    const c = client(stubFetch(() => json({})).fetch, {
      telemetry: { tracerProvider: o.tracerProvider, meterProvider: o.meterProvider },
      middleware: [
        (req, next, ctx) => {
          seen.push(ctx.urlTemplate);
          return next(req);
        },
      ],
    });
    await c.request('GET', '/customers/ivan.petrov@example.com/orders/A-1042');
    await c.request('GET', '/customers/olga@example.com/orders/B-7');
    await c.request('POST', `/payments/${PAYMENT_ID}/refund`, { body: { amount: 1 } });
    await c.request('GET', '/banks/sbp');
    await c.request('GET', '/customers/ivan.petrov@example.com/orders/A-1042', {
      template: '/customers/{customer}/orders/{order}',
    });
    const names = [
      'GET /api/v1/public/{id}/{id}/{id}/{id}',
      'GET /api/v1/public/{id}/{id}/{id}/{id}',
      'POST /api/v1/public/payments/{id}/refund',
      'GET /api/v1/public/banks/sbp',
      'GET /api/v1/public/customers/{customer}/orders/{order}',
    ];
    expect(
      o
        .spans()
        .filter((s) => s.attributes['url.template'] !== undefined)
        .map((s) => s.name),
    ).toEqual(names);
    expect(seen).toEqual(names.map((n) => n.split(' ')[1]));
    const { points } = await o.durations();
    expect(points.map((p) => p.attributes['url.template']).sort()).toEqual(
      [...new Set(names.map((n) => n.split(' ')[1]))].sort(),
    );
    const all = everything(o, points);
    for (const s of ['ivan', 'olga', 'example.com', 'A-1042', 'B-7', PAYMENT_ID])
      expect(all).not.toContain(s);
  });

  it('refuses a template that does not describe the path, before anything is sent', async () => {
    const { fetch, seen } = stubFetch(() => json({}));
    const c = client(fetch);
    for (const template of [
      '/customers/{id}',
      '/clients/{id}/orders/{order}',
      'customers/{c}/orders/{o}',
      '/{a b}/orders/{o}/x',
      7,
    ]) {
      await expect(
        c.request('GET', '/customers/c-1/orders/o-2', { template: template as string }),
      ).rejects.toThrow(/template: must be the path with \{name\} for each segment that varies/);
    }
    expect(seen).toHaveLength(0);
  });

  it('records nothing with telemetry: false, even with an SDK registered', async () => {
    const o = otel();
    o.register();
    registered = o;
    const { fetch } = stubFetch(() => json(createPaymentResponse(), 201));
    await client(fetch, { telemetry: false }).payments.create({ amount: 1 });
    expect(o.spans()).toEqual([]);
    expect((await o.durations()).points).toEqual([]);
  });

  it('uses an SDK registered after the client was made', async () => {
    const { fetch } = stubFetch(() => json(payment()));
    const c = client(fetch);
    await c.payments.get(PAYMENT_ID);
    const o = otel();
    o.register();
    registered = o;
    await c.payments.get(PAYMENT_ID);
    expect(o.spans().map((s) => s.name)).toEqual(['GET /api/v1/public/payments/{id}', 'payments.get']);
  });

  it('writes each attempt’s traceparent with the app’s registered propagator, for the service to continue', async () => {
    const o = otel();
    o.register();
    registered = o;
    // W3C trace context, as @opentelemetry/core's propagator writes it (core is not a dependency here).
    propagation.setGlobalPropagator({
      inject(ctx, carrier, setter) {
        const sc = trace.getSpanContext(ctx);
        if (sc) setter.set(carrier, 'traceparent', `00-${sc.traceId}-${sc.spanId}-0${sc.traceFlags}`);
      },
      extract: (ctx) => ctx,
      fields: () => ['traceparent'],
    });
    const { fetch, seen } = stubFetch(() => json(payment()));
    await client(fetch).payments.get(PAYMENT_ID);
    const [attempt] = o.spans();
    const { traceId, spanId } = attempt?.spanContext() ?? {};
    expect(seen[0]?.headers.traceparent).toBe(`00-${traceId}-${spanId}-01`);
  });
});
