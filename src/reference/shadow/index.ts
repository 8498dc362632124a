/**
 * Shadow mode: a proxy in front of a real Payment Service (its test mode, a staging build) that answers every
 * request with the service's own answer, replays each public request against an in-process reference, and records
 * where the two answers differ. It shows, on the merchant's own traffic, where the reference has drifted from the
 * service it doubles.
 */
import { authorization, requestSignature } from '../../internal/wire.js';
import { formsOnly, redactSecrets } from '../../internal/redact.js';
import { CODE } from '../../schemas/errors.js';
import { PUBLIC_PREFIX } from '../../schemas/operations.js';
import { isAdminToken, bearer } from '../http/auth.js';
import { readRawBody } from '../http/body.js';
import type { RequestInfo } from '../http/context.js';
import { json, refusalResponse, toResponse } from '../http/errors.js';
import { operationOf } from '../http/journal-middleware.js';
import { createReference, type Reference, type ReferenceOptions } from '../service.js';
import { type ComparedAnswer, compareAnswers } from './compare.js';
import { IdMap } from './ids.js';
import { ShadowRecorder, type ShadowReport, shown } from './report.js';
import { UpstreamExchange, type UpstreamLimits } from './upstream.js';

export type { Difference as ShadowDifference } from './compare.js';
export type { ShadowAnswer, ShadowItem, ShadowReport } from './report.js';
export { shadowSummary } from './report.js';

/**
 * Options of {@link createShadow} and {@link startShadow}.
 *
 * @example createShadow({ upstream: 'https://psp-test.example.com' })
 */
export interface ShadowOptions {
  /** The service every request goes to, and whose answers the caller gets: a base URL (`https://...`). */
  upstream: string;
  /** Options of the in-process reference the public requests are replayed against. Default: its defaults. */
  reference?: ReferenceOptions | undefined;
  /** Most differing requests the report keeps (the newest); the rest are counted. Default 200. */
  maxReport?: number | undefined;
  /** Most upstream ids remembered with the reference's matching ids. Default 10,000. */
  maxIds?: number | undefined;
  /** What reaches the upstream. Default `globalThis.fetch`. */
  fetch?: typeof fetch | undefined;
  /**
   * Largest upstream answer read for comparison, in bytes. A larger one is passed to the caller unread, as it
   * comes, and counted in the report's `too_large` (a spec answer is a few KiB; the bank list about 3 KiB).
   * Default 4 MiB.
   */
  maxCompareBytes?: number | undefined;
  /**
   * Most milliseconds the upstream may take to send its answer's headers; past it the caller gets 504
   * `gateway_timeout` and the upstream's connection is closed. Default 30,000.
   */
  upstreamHeadersTimeoutMs?: number | undefined;
  /**
   * Most milliseconds the upstream may take, after its headers, to send a body that is compared (a public
   * request's); past it the caller gets 504 `gateway_timeout` and the connection is closed. Default 30,000.
   */
  upstreamBodyTimeoutMs?: number | undefined;
}

/** A shadow as a Web-standard handler, made by {@link createShadow}. */
export interface Shadow {
  /** Answers one request: the upstream's answer (the report itself at `GET /_shadow/report`). */
  fetch(request: Request, info?: RequestInfo): Promise<Response>;
  /** The differences so far; `GET /_shadow/report` answers the same (with the reference's admin token). */
  report(): ShadowReport;
  /** The in-process reference the requests are replayed against. */
  readonly reference: Reference;
  /** Closes the in-process reference. */
  close(): Promise<void>;
}

// Request headers that belong to one connection, and the encoding fetch negotiates for itself.
const HOP = ['connection', 'keep-alive', 'transfer-encoding', 'te', 'upgrade', 'host', 'content-length'];
const DROP_REQUEST = [...HOP, 'accept-encoding', 'proxy-authorization', 'proxy-connection'];
// fetch has decoded the body: its length and encoding no longer hold.
const DROP_ANSWER = [...HOP, 'content-encoding'];
const NULL_BODY = new Set([101, 204, 205, 304]);
const MAX_BODY = 1024 * 1024;
/** The defaults of the upstream's limits (ShadowOptions says what each bounds). */
export const SHADOW_DEFAULTS: UpstreamLimits = {
  maxCompareBytes: 4 * 1024 * 1024,
  headersTimeoutMs: 30_000,
  bodyTimeoutMs: 30_000,
};

function without(headers: Headers, names: string[]): Headers {
  const out = new Headers(headers);
  for (const name of names) out.delete(name);
  return out;
}

function parsed(bytes: Uint8Array, headers: Headers): unknown {
  if (!bytes.byteLength || !headers.get('content-type')?.includes('json')) return undefined;
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}

const isPublic = (path: string) => path === PUBLIC_PREFIX || path.startsWith(`${PUBLIC_PREFIX}/`);

// Over 80 lines: the shadow's state (ids, report, upstream) is shared by its handler and its report route; each step is a helper of shadow/.
/**
 * Makes a shadow: every request goes to `upstream` and its answer is what the caller gets; each public request
 * (but the event stream) is then replayed against an in-process reference, with the reference's own API key and
 * signing secret and the reference's ids in place of the upstream's, and the two answers are compared. Nothing
 * of the replay can change the caller's answer.
 *
 * @throws TypeError when `upstream` is not an http(s) URL.
 * @example
 * ```ts
 * const shadow = createShadow({ upstream: 'https://psp-test.example.com' });
 * const res = await shadow.fetch(new Request('http://shadow.test/api/v1/public/banks/sbp', { headers }));
 * shadow.report().differing; // 0 while the reference matches the service
 * await shadow.close();
 * ```
 */
export function createShadow(options: ShadowOptions): Shadow {
  const upstream = new URL(options.upstream);
  if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:') {
    throw new TypeError(
      `upstream must be an http(s) URL, got ${JSON.stringify(redactSecrets(options.upstream))}`,
    );
  }
  const base = upstream.href.replace(/\/+$/, '');
  const send = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const reference = createReference(options.reference);
  const ids = new IdMap(options.maxIds ?? 10_000);
  const recorder = new ShadowRecorder(options.maxReport ?? 200);
  const limits: UpstreamLimits = {
    maxCompareBytes: positive('maxCompareBytes', options.maxCompareBytes, SHADOW_DEFAULTS.maxCompareBytes),
    headersTimeoutMs: positive(
      'upstreamHeadersTimeoutMs',
      options.upstreamHeadersTimeoutMs,
      SHADOW_DEFAULTS.headersTimeoutMs,
    ),
    bodyTimeoutMs: positive(
      'upstreamBodyTimeoutMs',
      options.upstreamBodyTimeoutMs,
      SHADOW_DEFAULTS.bodyTimeoutMs,
    ),
  };

  /** The replay's answer to what the upstream was sent, with the reference's key, signature and ids. */
  async function replay(
    request: Request,
    body: Uint8Array,
    upstreamAnswer: ComparedAnswer,
  ): Promise<ComparedAnswer> {
    const headers = without(request.headers, DROP_REQUEST);
    const code = (upstreamAnswer.body as { error?: { code?: unknown } | undefined } | undefined)?.error?.code;
    // A key or signature the upstream refused stays as sent: the reference refuses it the same way.
    if (headers.has('authorization') && upstreamAnswer.status !== 401) {
      headers.set('authorization', authorization(reference.api_key));
    }
    if (headers.has('x-psp-signature') && code !== CODE.invalid_signature) {
      headers.set('x-psp-signature', requestSignature(reference.signing_secret, body));
    }
    const url = new URL(request.url);
    const target = `http://shadow.replay${ids.path(url.pathname)}${url.search}`;
    const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
    const res = await reference.fetch(
      new Request(target, { method: request.method, headers, ...(hasBody ? { body } : {}) }),
      { remoteAddress: '127.0.0.1' },
    );
    const bytes = new Uint8Array(await res.arrayBuffer());
    return { status: res.status, headers: res.headers, body: parsed(bytes, res.headers) };
  }

  async function handle(request: Request, info?: RequestInfo): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === '/_shadow/report') return reportRoute(request);
    const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
    let body: Uint8Array = new Uint8Array(0);
    try {
      if (hasBody)
        body = info?.readBody ? await info.readBody(MAX_BODY) : await readRawBody(request, MAX_BODY);
    } catch (error) {
      return toResponse(error, formsOnly);
    }
    const unreachable = () =>
      refusalResponse(CODE.service_unavailable, 'The shadow could not reach its upstream.', {
        'retry-after': '1',
      });
    const timedOut = () =>
      refusalResponse(CODE.gateway_timeout, 'The upstream did not answer in time; the shadow gave up on it.');
    const exchange = new UpstreamExchange(limits, request.signal);
    const up = await exchange.answer((signal) =>
      send(`${base}${url.pathname}${url.search}`, {
        method: request.method,
        headers: without(request.headers, DROP_REQUEST),
        ...(hasBody ? { body } : {}),
        redirect: 'manual',
        signal,
      }),
    );
    if (up === 'timeout') return timedOut();
    if (up === 'unreachable') return unreachable();
    const headers = without(up.headers, DROP_ANSWER);
    const operation = isPublic(url.pathname) ? operationOf(request.method, url.pathname) : undefined;
    const stream = up.headers.get('content-type')?.includes('text/event-stream');
    // Not compared: what is not the public API, and the event stream (its frames are timed, not answered).
    if (operation === undefined || operation === 'events.stream' || stream) {
      return new Response(NULL_BODY.has(up.status) ? null : up.body, { status: up.status, headers });
    }
    const read = await exchange.body(up);
    if (read.kind === 'timeout') return timedOut();
    if (read.kind === 'dropped') return unreachable();
    if (read.kind === 'too-large') {
      recorder.tooLarge();
      return new Response(read.stream, { status: up.status, headers });
    }
    exchange.close();
    const upstreamAnswer: ComparedAnswer = {
      status: up.status,
      headers: up.headers,
      body: parsed(read.bytes, up.headers),
    };
    await compare(request, body, operation, upstreamAnswer, read.bytes);
    return new Response(NULL_BODY.has(up.status) ? null : read.bytes, { status: up.status, headers });
  }

  async function compare(
    request: Request,
    body: Uint8Array,
    operation: ReturnType<typeof operationOf>,
    upstreamAnswer: ComparedAnswer,
    bytes: Uint8Array,
  ): Promise<void> {
    const item = {
      time: new Date().toISOString(),
      operation,
      method: request.method,
      path: redactSecrets(new URL(request.url).pathname),
      upstream: shown(upstreamAnswer, new TextDecoder().decode(bytes.subarray(0, 8192))),
    };
    let answer: ComparedAnswer;
    try {
      answer = await replay(request, body, upstreamAnswer);
    } catch (error) {
      // The reference never fails a request (a reset only comes from its fault rules): this is its bug to show.
      const why = `the replay failed: ${error instanceof Error ? error.message : String(error)}`;
      recorder.add({
        ...item,
        differences: [{ kind: 'status', upstream: upstreamAnswer.status, replay: null }],
        reference: shown(undefined, why),
      });
      return;
    }
    const ok = (a: ComparedAnswer) => a.status >= 200 && a.status < 300;
    if (ok(upstreamAnswer) && ok(answer)) ids.learn(upstreamAnswer.body, answer.body);
    recorder.add({ ...item, differences: compareAnswers(upstreamAnswer, answer), reference: shown(answer) });
  }

  function reportRoute(request: Request): Response {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return refusalResponse(CODE.method_not_allowed, `${request.method} is not allowed here; use GET.`, {
        allow: 'GET, HEAD',
      });
    }
    // The report holds the merchant's traffic (phone numbers of payouts): the reference's admin token reads it.
    let token = '';
    try {
      token = bearer(request);
    } catch {}
    if (!isAdminToken(token, reference.admin_token)) {
      return refusalResponse(CODE.unauthorized, "The shadow's report takes its admin token.");
    }
    return json(200, recorder.report());
  }

  return {
    fetch: handle,
    report: () => recorder.report(),
    reference,
    close: () => reference.close(),
  };
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) throw new TypeError(`${name} must be a positive integer`);
  return value;
}

/** Options of {@link startShadow}: the shadow's and where to listen. */
export interface StartShadowOptions extends ShadowOptions {
  /** Address to bind. Default `127.0.0.1`. */
  host?: string | undefined;
  /** Port to bind; 0 takes a free one. Default 4020. */
  port?: number | undefined;
}

/** A shadow serving over HTTP: a {@link Shadow} plus where it listens, and a `close()` that stops the server too. */
export interface RunningShadow extends Shadow {
  /** Where to point the merchant's client instead of the service, e.g. `http://127.0.0.1:4020`. */
  url: string;
  /** The admin token `GET /_shadow/report` takes (the in-process reference's). */
  admin_token: string;
}

/**
 * Starts a shadow on a real HTTP server (Node): point a client's `baseUrl` at `url` and it talks to `upstream`
 * as before, while every public request is also replayed against an in-process reference and compared.
 *
 * @throws Error when the address cannot be bound; TypeError for an `upstream` that is not an http(s) URL.
 * @example
 * ```ts
 * import { shadowSummary, startShadow } from 'psp-sdk/reference';
 *
 * const shadow = await startShadow({ upstream: 'https://psp-test.example.com', port: 0 });
 * // ... run the app with baseUrl: shadow.url ...
 * console.log(shadowSummary(shadow.report()));
 * await shadow.close();
 * ```
 */
export async function startShadow(options: StartShadowOptions): Promise<RunningShadow> {
  const { host = '127.0.0.1', port = 4020, ...shadowOptions } = options;
  const shadow = createShadow(shadowOptions);
  // Loaded on demand, as startReference does: the entry itself stays free of node: imports.
  const { listenNode } = await import('../adapters/node-http.js');
  let server: Awaited<ReturnType<typeof listenNode>>;
  try {
    server = await listenNode((request, info) => shadow.fetch(request, info), { host, port });
  } catch (error) {
    await shadow.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    ...shadow,
    url: server.url,
    admin_token: shadow.reference.admin_token,
    close() {
      closing ??= (async () => {
        await server.close();
        await shadow.close();
      })();
      return closing;
    },
  };
}
