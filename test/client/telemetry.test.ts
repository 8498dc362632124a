import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { telemetry } from '../../src/client/telemetry.js';
import { otel } from './otel-helpers.js';

const TEMPLATE = '/api/v1/public/payments/{id}';
let active: ReturnType<typeof otel> | undefined;
afterEach(() => {
  active?.unregister();
  active = undefined;
});

describe('telemetry()', () => {
  it('records nothing, and answers undefined, with no provider registered or with telemetry: false', () => {
    expect(telemetry(undefined, 'http://psp.test').call('payments.get')).toBeUndefined();
    const o = otel();
    o.register();
    active = o;
    expect(telemetry(false, 'http://psp.test').call('payments.get')).toBeUndefined();
  });

  it('ignores a global registration of another major version', () => {
    const key = Symbol.for('opentelemetry.js.api.1');
    const g = globalThis as Record<symbol, unknown>;
    const o = otel();
    g[key] = { version: '2.0.0', trace: o.tracerProvider };
    try {
      expect(telemetry(undefined, 'http://psp.test').call('payments.get')).toBeUndefined();
    } finally {
      delete g[key];
    }
  });

  it('makes one call span and one CLIENT span per attempt, children of it, with the conventions attributes', async () => {
    const o = otel();
    const rec = telemetry(
      { tracerProvider: o.tracerProvider, meterProvider: o.meterProvider },
      'https://psp.example.com',
    );
    const call = rec.call('payments.get');
    expect(call).toBeDefined();
    call?.attempt('GET', TEMPLATE, 1)(503);
    call?.attempt('GET', TEMPLATE, 2)(undefined, 'TypeError');
    call?.attempt('GET', TEMPLATE, 3)(200);
    call?.end();
    const spans = o.spans();
    expect(spans.map((s) => s.name)).toEqual([
      `GET ${TEMPLATE}`,
      `GET ${TEMPLATE}`,
      `GET ${TEMPLATE}`,
      'payments.get',
    ]);
    const [a1, a2, a3, parent] = spans;
    expect(parent?.attributes).toEqual({ 'psp.operation': 'payments.get' });
    expect(parent?.status.code).toBe(SpanStatusCode.UNSET);
    for (const a of [a1, a2, a3]) {
      expect(a?.kind).toBe(SpanKind.CLIENT);
      expect(a?.parentSpanContext?.spanId).toBe(parent?.spanContext().spanId);
      expect(a?.spanContext().traceId).toBe(parent?.spanContext().traceId);
    }
    expect(a1?.attributes).toEqual({
      'http.request.method': 'GET',
      'url.template': TEMPLATE,
      'server.address': 'psp.example.com',
      'server.port': 443,
      'http.response.status_code': 503,
      'error.type': '503',
    });
    expect(a1?.status.code).toBe(SpanStatusCode.ERROR);
    expect(a2?.attributes['http.request.resend_count']).toBe(1);
    expect(a2?.attributes['error.type']).toBe('TypeError');
    expect(a2?.attributes['http.response.status_code']).toBeUndefined();
    expect(a3?.attributes['http.request.resend_count']).toBe(2);
    expect(a3?.attributes['error.type']).toBeUndefined();
    expect(a3?.status.code).toBe(SpanStatusCode.UNSET);

    const { metric, points } = await o.durations();
    expect(metric?.descriptor.unit).toBe('s');
    expect(
      points.map((p) => p.attributes['http.response.status_code'] ?? p.attributes['error.type']).sort(),
    ).toEqual([200, 503, 'TypeError']);
    for (const p of points) {
      expect(p.value.count).toBe(1);
      expect(p.attributes['url.template']).toBe(TEMPLATE);
      expect(p.attributes['server.port']).toBe(443);
    }
  });

  it('marks a failed call with the error class, never its message', () => {
    const o = otel();
    const call = telemetry({ tracerProvider: o.tracerProvider }, 'http://127.0.0.1:4010').call(
      'payments.create',
    );
    call?.attempt('POST', '/api/v1/public/payments', 1)(401);
    call?.end(Object.assign(new Error('key sk_test_ab12cd_secret refused'), { name: 'AuthenticationError' }));
    const [attempt, span] = o.spans();
    expect(attempt?.attributes['server.address']).toBe('127.0.0.1');
    expect(attempt?.attributes['server.port']).toBe(4010);
    expect(span?.attributes['error.type']).toBe('AuthenticationError');
    expect(span?.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(JSON.stringify(o.spans().map((s) => [s.attributes, s.status, s.events]))).not.toMatch(
      /sk_test|refused/,
    );
  });

  it('uses the globally registered providers, looked up per call, under the active span', async () => {
    const rec = telemetry(undefined, 'http://psp.test');
    const o = otel();
    o.register();
    active = o;
    // A synchronous context manager, enough for `context.with` (the Node SDK registers an AsyncLocalStorage one).
    const stack = [ROOT_CONTEXT];
    context.setGlobalContextManager({
      active: () => stack.at(-1) ?? ROOT_CONTEXT,
      with(ctx, fn, thisArg, ...args) {
        stack.push(ctx);
        try {
          return fn.call(thisArg, ...args);
        } finally {
          stack.pop();
        }
      },
      bind: (_ctx, target) => target,
      enable() {
        return this;
      },
      disable() {
        return this;
      },
    });
    const appSpan = o.tracerProvider.getTracer('app').startSpan('handler');
    const call = context.with(trace.setSpan(context.active(), appSpan), () => rec.call('banks.list'));
    call?.attempt('GET', '/api/v1/public/banks/sbp', 1)(200);
    call?.end();
    appSpan.end();
    const byName = new Map(o.spans().map((s) => [s.name, s]));
    const callSpan = byName.get('banks.list');
    expect(callSpan?.parentSpanContext?.spanId).toBe(appSpan.spanContext().spanId);
    expect(byName.get('GET /api/v1/public/banks/sbp')?.parentSpanContext?.spanId).toBe(
      callSpan?.spanContext().spanId,
    );
    const { points } = await o.durations();
    expect(points).toHaveLength(1);
    expect(points[0]?.attributes['server.port']).toBe(80);
  });
});
