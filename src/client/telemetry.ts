// OpenTelemetry without a dependency: the client speaks to the providers through the few methods of
// @opentelemetry/api it needs, found on the API's global registration (or given in the options). Nothing of this
// runs, and nothing is allocated, on a call while no provider is there.
import type { Operation } from './operation.js';
import { VERSION } from '../internal/version.js';

/**
 * Span attributes as the client sets them (`http.request.method`, `server.address`, ...).
 *
 * @example
 * const attributes: OtelAttributes = { 'http.request.method': 'POST' };
 */
export type OtelAttributes = Record<string, string | number>;
type Attrs = OtelAttributes;

/**
 * The part of an OpenTelemetry `Context` this client uses; `@opentelemetry/api`'s contexts fit.
 *
 * @example
 * const ctx: OtelContext = context.active();
 */
export interface OtelContext {
  getValue(key: symbol): unknown;
  setValue(key: symbol, value: unknown): OtelContext;
  deleteValue(key: symbol): OtelContext;
}
type Ctx = OtelContext;

/**
 * The part of an OpenTelemetry `Span` this client calls; the SDK's spans fit.
 *
 * @example
 * const span: OtelSpan = tracer.startSpan('payments.create');
 */
export interface OtelSpan {
  setAttribute(key: string, value: string | number): unknown;
  setStatus(status: { code: number }): unknown;
  end(): void;
}

/**
 * The part of an OpenTelemetry `TracerProvider` the client calls; the SDK's providers fit.
 *
 * @example
 * const tracerProvider: OtelTracerProvider = new BasicTracerProvider();
 */
export interface OtelTracerProvider {
  // startSpan's options are what the client passes to OpenTelemetry: exact, as @opentelemetry/api declares them.
  getTracer(
    name: string,
    version?: string,
  ): { startSpan(name: string, options?: { kind?: number; attributes?: Attrs }, context?: Ctx): OtelSpan };
}

/**
 * The part of an OpenTelemetry `MeterProvider` the client calls; the SDK's `MeterProvider` fits.
 *
 * @example
 * const meterProvider: OtelMeterProvider = new MeterProvider({ readers: [reader] });
 */
export interface OtelMeterProvider {
  getMeter(
    name: string,
    version?: string,
  ): {
    createHistogram(
      name: string,
      options?: { unit?: string; advice?: { explicitBucketBoundaries?: number[] } },
    ): { record(value: number, attributes?: Attrs): void };
  };
}

/**
 * The `telemetry` client option: the providers to record to, instead of the ones registered globally with
 * `@opentelemetry/api`. A provider left out records nothing.
 *
 * @example
 * new PspClient({ apiKey, baseUrl, telemetry: { tracerProvider, meterProvider } });
 */
export interface TelemetryOptions {
  tracerProvider?: OtelTracerProvider | undefined;
  meterProvider?: OtelMeterProvider | undefined;
}

/** Where @opentelemetry/api 1.x registers its globals (`internal/global-utils.js`). */
const GLOBAL = Symbol.for('opentelemetry.js.api.1');
/** The API's context key of the active span (`trace/context-utils.js`). */
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');
const CLIENT = 2;
const ERROR = 2;
// The semantic conventions' advice for http.client.request.duration, in seconds.
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

type Api = {
  version?: unknown;
  trace?: OtelTracerProvider | undefined;
  metrics?: OtelMeterProvider | undefined;
  context?: { active(): Ctx } | undefined;
  propagation?: Propagator | undefined;
};

/** The registered API, if it is a 1.x (the same test as the API's own `isCompatible` across one major). */
function api(): Api | undefined {
  const g = (globalThis as Record<symbol, Api | undefined>)[GLOBAL];
  return typeof g?.version === 'string' && g.version.startsWith('1.') ? g : undefined;
}

/** A context of our own, for when no context manager is registered: `get` answers its values. */
function ctx(get: (key: symbol) => unknown): Ctx {
  return {
    getValue: get,
    setValue: (k, v) => ctx((x) => (x === k ? v : get(x))),
    deleteValue: (k) => ctx((x) => (x === k ? undefined : get(x))),
  };
}

/** One attempt being recorded: `end` with the status received, or without one and the error's type. */
export type AttemptRecorder = ((status: number | undefined, errorType?: string) => void) & {
  /** Writes the attempt's trace context (`traceparent`, ...) with the app's registered propagator, if any. */
  inject?: ((headers: Headers) => void) | undefined;
};
type Propagator = {
  inject(context: Ctx, carrier: Headers, setter: { set(c: Headers, k: string, v: string): void }): void;
};
const SETTER = { set: (c: Headers, k: string, v: string) => c.set(k, v) };

/** One logical call being recorded. */
export interface CallRecorder {
  attempt(method: string, urlTemplate: string, attempt: number): AttemptRecorder;
  end(error?: { name: string }): void;
}

/**
 * The client's recorder. `call()` answers `undefined` (and allocates nothing) when telemetry is off or no
 * provider is there; providers are looked up per call, so an SDK registered after the client is made is used.
 *
 * @example
 * const rec = telemetry(options.telemetry, baseUrl).call('payments.get');
 * const end = rec?.attempt('GET', template, 1);
 */
export function telemetry(
  option: TelemetryOptions | false | undefined,
  baseUrl: string,
): { call(operation: Operation): CallRecorder | undefined } {
  const url = new URL(baseUrl);
  const server: Attrs = {
    'server.address': url.hostname.replace(/^\[|\]$/g, ''),
    'server.port': Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
  };
  // The tracer and histogram are made once per provider seen.
  let tp: OtelTracerProvider | undefined;
  let tracer: ReturnType<OtelTracerProvider['getTracer']> | undefined;
  let mp: OtelMeterProvider | undefined;
  let histogram: { record(value: number, attributes?: Attrs): void } | undefined;

  const call = (operation: Operation): CallRecorder | undefined => {
    if (option === false) return undefined;
    const g = option ? undefined : api();
    const t = option ? option.tracerProvider : g?.trace;
    const m = option ? option.meterProvider : g?.metrics;
    if (!t && !m) return undefined;
    if (t !== tp) {
      tp = t;
      tracer = t?.getTracer('psp-sdk', VERSION);
    }
    if (m !== mp) {
      mp = m;
      histogram = m?.getMeter('psp-sdk', VERSION).createHistogram('http.client.request.duration', {
        unit: 's',
        advice: { explicitBucketBoundaries: BUCKETS },
      });
    }
    const span = tracer?.startSpan(operation, { attributes: { 'psp.operation': operation } });
    const parent = span && (g?.context?.active() ?? ctx(() => undefined)).setValue(SPAN_KEY, span);
    return {
      attempt(method, urlTemplate, attempt) {
        const attrs: Attrs = { 'http.request.method': method, 'url.template': urlTemplate, ...server };
        const a = tracer?.startSpan(
          `${method} ${urlTemplate}`,
          {
            kind: CLIENT,
            attributes: attempt > 1 ? { ...attrs, 'http.request.resend_count': attempt - 1 } : attrs,
          },
          parent,
        );
        const started = performance.now();
        const end: AttemptRecorder = (status, errorType) => {
          if (status !== undefined) attrs['http.response.status_code'] = status;
          const type = errorType ?? (status !== undefined && status >= 400 ? String(status) : undefined);
          if (type !== undefined) attrs['error.type'] = type;
          histogram?.record((performance.now() - started) / 1000, attrs);
          if (!a) return;
          if (status !== undefined) a.setAttribute('http.response.status_code', status);
          if (type !== undefined) {
            a.setAttribute('error.type', type);
            a.setStatus({ code: ERROR });
          }
          a.end();
        };
        // Distributed tracing: the service's spans (and a proxy's) continue this attempt's trace.
        const prop = g?.propagation;
        if (a && parent && prop) end.inject = (h) => prop.inject(parent.setValue(SPAN_KEY, a), h, SETTER);
        return end;
      },
      end(error) {
        if (!span) return;
        if (error) {
          // The class name only: a message may quote the server.
          span.setAttribute('error.type', error.name);
          span.setStatus({ code: ERROR });
        }
        span.end();
      },
    };
  };
  return { call };
}
