import ky, { HTTPError, type KyInstance, type Options as KyOptions, TimeoutError } from 'ky';
import type { ApiResult } from './api-promise.js';
import {
  apiErrorOf,
  PspAbortError,
  PspError,
  PspResponseError,
  parseRetryAfter,
  readText,
  redirectMessage,
} from './errors.js';
import { type CallState, markCall, toPspError } from './failures.js';
import { logFailure } from './log-level.js';
import { log, safeHeaders } from './logger.js';
import { bodyBytes, type Middleware, runChain, templateOf } from './middleware.js';
import { type RequestOptions, type ResolvedOptions, resolveCallOptions } from './options.js';
import type { Operation } from './operation.js';
import { release } from './release.js';
import { createSigner, type Signer } from './sign.js';
import type { StreamTap } from './event-stream.js';
import { type CallRecord, telemetry } from './telemetry.js';

/** One API call as the resources describe it. */
export interface TransportRequest {
  operation: Operation;
  /**
   * The path template below `/api/v1/public` (`/payments/{id}`); absent for `client.request()`, whose path is the
   * caller's own.
   */
  template?: string | undefined;
  method: 'GET' | 'POST';
  /** Path below `/api/v1/public`, starting with `/`. */
  path: string;
  /** The exact JSON text to send; signed byte for byte. */
  body?: string;
  idempotencyKey?: string;
  /** Whether repeating the request cannot duplicate an effect: GETs, keyed POSTs, cancel. Only these retry. */
  safe: boolean;
  options?: RequestOptions;
}

const API_PREFIX = '/api/v1/public';

type Parse<T> = (json: unknown, status: number) => T;

/**
 * The HTTP layer. ky does the attempts, per-attempt timeouts, the status list, backoff with full jitter,
 * `Retry-After` (clamped by `maxRetryDelay`) and the abortable sleep. A per-call fetch wrapper adds what ky
 * lacks: it counts attempts, signs each attempt, and answers a 429 at once when its `Retry-After` outlasts the
 * call's timeout. Every failure leaves as a typed, secret-free {@link PspError}.
 *
 * @example
 * const t = new Transport(resolveOptions({ apiKey, baseUrl }));
 * const { data } = await t.request({ method: 'GET', path: '/banks/sbp', safe: true }, (j) => j);
 */
export class Transport {
  readonly #o: ResolvedOptions;
  readonly #ky: KyInstance;
  readonly #auth: string;
  readonly #sign: Signer | undefined;
  /** Parse answers strictly (the client's `strict` option). */
  readonly strict: boolean;
  /** The client's `middleware`, also run around the event stream's connection attempts. */
  readonly middleware: readonly Middleware[];
  /** The client's open event streams, which its `waitFor` calls listen to. */
  readonly tap: StreamTap = { live: 0, listeners: new Set() };
  readonly #tel: ReturnType<typeof telemetry>;

  constructor(options: ResolvedOptions) {
    this.#o = options;
    this.strict = options.strict;
    this.middleware = options.middleware;
    this.#tel = telemetry(options.telemetry, options.baseUrl);
    this.#auth = `Bearer ${options.apiKey}`;
    if (options.signingSecret) this.#sign = createSigner(options.signingSecret);
    // Everything constant lives in the instance, and no headers or hooks are set there: ky merges an instance's
    // headers into two fresh Headers objects per call and its constructor two more, so the headers are set on
    // the Request in `#attempt` instead (where the signature already is). A plain call then costs less than a
    // bare `ky.get` with an auth header.
    this.#ky = ky.create({
      timeout: options.timeout,
      // The API never redirects: a 3xx is an error answer (see createApiError), never a hop that would re-send the
      // key, the body and the signature to another host.
      redirect: 'manual',
      // As few keys as the rules need: ky re-normalises this object on every call. ky's defaults stand for the
      // rest: statuses 408, 429, 500, 502, 503, 504 (and 413, refused below).
      retry: {
        methods: ['get', 'post'],
        // Retry-After is read by parseRetryAfter alone (see `#delay`), not by ky's own reader.
        afterStatusCodes: [],
        backoffLimit: options.maxRetryDelay,
        // Our own errors (the 429 fail-fast) and a 413 end the call; a timed-out attempt and any 5xx above 504
        // are retried like the listed statuses.
        shouldRetry: ({ error }) =>
          error instanceof PspError
            ? false
            : error instanceof TimeoutError
              ? true
              : error instanceof HTTPError
                ? error.response.status === 413
                  ? false
                  : error.response.status > 504 || undefined
                : undefined,
      },
    });
  }

  /** Absolute URL of a public API path. */
  url(path: string): string {
    return `${this.#o.baseUrl}${API_PREFIX}${path}`;
  }

  /**
   * The headers of a GET without body made outside ky (the event stream, per connection attempt): bearer auth
   * and, when signing, the signature of the empty string.
   */
  getHeaders(): Record<string, string> {
    const h: Record<string, string> = { authorization: this.#auth };
    if (this.#o.userAgent) h['user-agent'] = this.#o.userAgent;
    if (this.#sign) h['x-psp-signature'] = `sha256=${this.#sign('')}`;
    return h;
  }

  /**
   * Sends one call (with its retries) and parses the answer with `parse`.
   * Throws a {@link PspError} subclass on every failure, never a ky or fetch error.
   */
  request<T>(req: TransportRequest, parse: Parse<T>): Promise<ApiResult<T>> {
    const rec = this.#tel.call(req.operation);
    const done = this.#call(req, parse, rec);
    return rec
      ? done.then(
          (r) => {
            rec.end();
            return r;
          },
          (err: unknown) => {
            rec.end(err as Error);
            throw err;
          },
        )
      : done;
  }

  async #call<T>(req: TransportRequest, parse: Parse<T>, rec: CallRecord | undefined): Promise<ApiResult<T>> {
    const call = resolveCallOptions(req.options, this.#o);
    const state: CallState = {
      attempts: 0,
      body: req.body ?? '',
      json: req.body !== undefined,
      timeout: call.timeout,
      signal: call.signal,
      idempotencyKey: req.idempotencyKey,
      started: this.#o.logger?.debug ? Date.now() : 0,
    };
    if (call.signal?.aborted)
      throw markCall(new PspAbortError('The request was aborted by the caller'), state);

    const kyOptions: KyOptions = {
      method: req.method,
      fetch: (input, init) => this.#attempt(input as Request, init, state, req, rec),
    };
    // No body for ky: see `#attempt`.
    if (call.timeout !== this.#o.timeout) kyOptions.timeout = call.timeout;
    if (call.signal) kyOptions.signal = call.signal;
    kyOptions.retry = req.safe
      ? // The server's Retry-After when the failed answer had a readable one, else full-jitter backoff of
        // 0.3 s x 2^(n-1); ky clamps either to maxRetryDelay (backoffLimit).
        { limit: call.maxRetries, delay: (n) => state.wait ?? Math.random() * 300 * 2 ** (n - 1) }
      : { limit: 0 };

    let response: Response;
    let text: string;
    try {
      response = await this.#ky(this.url(req.path), kyOptions);
      text = await readText(response, call.timeout, req.idempotencyKey);
    } catch (err) {
      throw await this.#fail(err, state, req);
    }
    if (this.#o.logger?.debug) {
      log(this.#o.logger, 'debug', 'psp-sdk: response', {
        method: req.method,
        path: req.path,
        status: response.status,
        attempts: state.attempts,
        ms: Date.now() - state.started,
        headers: safeHeaders(response.headers),
      });
    }
    let data: T;
    try {
      data = parse(text === '' ? undefined : JSON.parse(text), response.status);
    } catch (err) {
      // The parser throws PspResponseError only; anything else is JSON.parse refusing the text.
      const out =
        err instanceof PspResponseError
          ? err
          : new PspResponseError(
              `The ${req.method} ${req.path} answer (HTTP ${response.status}) is not JSON`,
              response.status,
            );
      out.idempotencyKey = req.idempotencyKey;
      logFailure(this.#o.logger, out, `${req.method} ${req.path}`);
      throw out;
    }
    return {
      data,
      response,
      idempotencyKey: req.idempotencyKey,
      attempts: state.attempts,
      requestId: response.headers.get('x-request-id') ?? undefined,
    };
  }

  /** One attempt: ky calls this in place of fetch, with the Request it built (headers mutable, no body). */
  #attempt(
    input: Request,
    init: RequestInit | undefined,
    state: CallState,
    req: TransportRequest,
    rec: CallRecord | undefined,
  ): Promise<Response> {
    // The body joins here, per attempt, as the exact text (same method, headers and signal as ky's Request). Given
    // to ky, a body costs a tee of its stream on every call (ky clones the Request to keep one for a retry) and two
    // stream cancels at the end: about 7 % of a create in bench/suites/client.mjs.
    const request = state.json ? new Request(input, { body: state.body }) : input;
    state.attempts++;
    state.wait = undefined;
    if (state.failed) {
      // The failed answer's body is never read: release its connection.
      void release(state.failed.body);
      state.failed = undefined;
    }
    const logger = this.#o.logger;
    if (logger?.info && state.attempts > 1) {
      log(logger, 'info', 'psp-sdk: retrying', {
        method: request.method,
        url: request.url,
        attempt: state.attempts,
        reason: state.reason,
      });
    }
    if (logger?.debug) {
      log(logger, 'debug', 'psp-sdk: request', {
        method: request.method,
        url: request.url,
        attempt: state.attempts,
        idempotencyKey: state.idempotencyKey,
      });
    }
    state.reason = undefined;
    // The headers of every attempt that are no secret, set here rather than through ky's `headers` option (see
    // the constructor), before the middleware; the rest in `#finish`, after it.
    const h = request.headers;
    h.set('accept', 'application/json');
    // The Request gave a string body `text/plain`; every body here is JSON.
    if (state.json) h.set('content-type', 'application/json');
    if (this.#o.userAgent) h.set('user-agent', this.#o.userAgent);
    // Built only for a middleware or a recorder: a plain call allocates nothing for either.
    const template =
      rec || this.middleware.length ? `${API_PREFIX}${req.template ?? templateOf(req.path)}` : '';
    const end = rec?.attempt(request.method, template, state.attempts);
    end?.inject?.(h);
    const sent = this.middleware.length
      ? runChain(
          this.middleware,
          request,
          {
            operation: req.operation,
            attempt: state.attempts,
            idempotencyKey: state.idempotencyKey,
            urlTemplate: template,
          },
          (r) => this.#next(r, request, init, state),
        )
      : this.#finish(request, state.json ? state.body : undefined, init, state);
    if (!end && !this.middleware.length) return sent;
    return sent.then(
      (res) => {
        if (!res.ok) state.reason ??= `HTTP ${res.status}`;
        end?.(res.status);
        return res;
      },
      (err: unknown) => {
        // A middleware's own failure: the retry line names it.
        state.reason ??= err instanceof Error ? err.name : 'error';
        end?.(undefined, request.signal.aborted ? 'timeout' : err instanceof Error ? err.name : 'error');
        throw err;
      },
    );
  }

  /** `next` of the middleware chain: sends a copy of what the last middleware passed, with its exact body. */
  async #next(
    r: Request,
    original: Request,
    init: RequestInit | undefined,
    state: CallState,
  ): Promise<Response> {
    const body = r === original ? (state.json ? state.body : undefined) : await bodyBytes(r);
    // A copy: the middleware never sees the key, and may hand the same request to next again. `manual` again: a
    // Request the middleware built itself would follow a redirect, taking the signature (and the key) along.
    return this.#finish(new Request(r, { body, redirect: 'manual' }), body, init, state);
  }

  /** Bearer auth, the Idempotency-Key and the signature of `body` (the exact text or bytes sent), then fetch. */
  #finish(
    request: Request,
    body: string | Uint8Array | undefined,
    init: RequestInit | undefined,
    state: CallState,
  ): Promise<Response> {
    const h = request.headers;
    h.set('authorization', this.#auth);
    if (state.idempotencyKey !== undefined) h.set('idempotency-key', state.idempotencyKey);
    // Per attempt, over the exact text handed to fetch (fetch encodes a string body as UTF-8, as HMAC does).
    if (this.#sign) h.set('x-psp-signature', `sha256=${this.#sign(body ?? '')}`);
    return this.#send(request, init, state);
  }

  async #fail(err: unknown, state: CallState, req: TransportRequest): Promise<PspError> {
    const out = await toPspError(err, state, `${req.method} ${req.path}`);
    logFailure(this.#o.logger, out, `${req.method} ${req.path}`);
    return out;
  }

  async #send(request: Request, init: RequestInit | undefined, state: CallState): Promise<Response> {
    let res: Response;
    try {
      res = await this.#o.fetch(request, init);
    } catch (err) {
      state.reason = request.signal.aborted ? 'timeout' : err instanceof Error ? err.name : 'error';
      throw err;
    }
    if (res.redirected) {
      // A custom fetch that followed a redirect in spite of `redirect: 'manual'`: too late to stop it, but the
      // answer of another address is not the API's.
      void release(res.body);
      throw new PspResponseError(redirectMessage(res.status, res.url), res.status, [], state.idempotencyKey);
    }
    if (res.ok) return res;
    state.failed = res;
    state.reason = `HTTP ${res.status}`;
    if (res.status === 429 || res.status === 503) {
      state.wait = parseRetryAfter(res.headers.get('retry-after'));
      // A longer wait than the caller is prepared to spend on this call: answer now, with retryAfter.
      if (res.status === 429 && state.wait !== undefined && state.wait > state.timeout) {
        state.failed = undefined;
        throw await apiErrorOf(res, state);
      }
    }
    return res;
  }
}
