import ky, { HTTPError, type KyInstance, type Options as KyOptions } from 'ky';
import type { ApiResult } from './api-promise.js';
import type { Redactor } from '../internal/redact.js';
import { PspAbortError, type PspError, PspResponseError, readText, redactError } from './errors.js';
import { type FailedCall, markCall, toPspError } from './failures.js';
import { logFailure } from './log-level.js';
import { log } from './logger.js';
import { type Middleware, templateOf } from './middleware.js';
import {
  type CallSettings,
  type RequestOptions,
  type ResolvedOptions,
  resolveCallOptions,
} from './options.js';
import type { Operation } from './operation.js';
import { release } from './release.js';
import { outcomeOf, retryDecision } from './retry.js';
import { sleep } from './wait.js';
import { type Credentials, createSendStep, credentialsOf, type SendStep } from './send.js';
import type { StreamTap } from './event-stream.js';
import { type CallRecorder, telemetry } from './telemetry.js';
import { PUBLIC_PREFIX as API_PREFIX } from '../schemas/operations.js';

/** One API call as the resources describe it. */
export interface TransportRequest {
  operation: Operation;
  /**
   * The path template below `/api/v1/public` (a row's `path` of the table of operations); absent for `client.request()`, whose path is the
   * caller's own.
   */
  template?: string | undefined;
  method: 'GET' | 'POST';
  /** Path below `/api/v1/public`, starting with `/`. */
  path: string;
  /** The exact JSON text to send; signed byte for byte. */
  body?: string | undefined;
  idempotencyKey?: string | undefined;
  /** Whether repeating the request cannot duplicate an effect: GETs, keyed POSTs, cancel. Only these retry. */
  safe: boolean;
  options?: RequestOptions | undefined;
}

const FINAL = { failure: 'final' } as const;

type Parse<T> = (json: unknown, status: number) => T;

/**
 * The HTTP layer. ky runs each attempt with its timeout; between attempts the call asks `retryDecision`
 * (`retry.ts`) whether and when to retry, and waits with the SDK's one abortable sleep (`wait.ts`). Each attempt goes out through the send
 * step (`send.ts`: middleware, then the secrets, then fetch), the one the event stream uses too. Every failure
 * leaves as a typed, secret-free {@link PspError}.
 *
 * @example
 * const t = new Transport(resolveOptions({ apiKey, baseUrl }));
 * const { data } = await t.request({ method: 'GET', path: pathOf('banks.list'), safe: true }, (j) => j);
 */
export class Transport {
  readonly #options: ResolvedOptions;
  readonly #ky: KyInstance;
  readonly #send: SendStep;
  /** The client's secret headers of an attempt; the event stream's send step uses them too. */
  readonly credentials: Credentials;
  /** Parse answers strictly (the client's `strict` option). */
  readonly strict: boolean;
  /** The client's `middleware`, also run around the event stream's connection attempts. */
  readonly middleware: readonly Middleware[];
  /** The client's redaction (its key and signing secret): every error the client throws is redacted with it. */
  readonly redact: Redactor;
  /** The client's open event streams, which its `waitFor` calls listen to. */
  readonly tap: StreamTap = { live: 0, listeners: new Set() };
  readonly #tel: ReturnType<typeof telemetry>;
  /** Where calls go, for the message of a connection failure (no path, no credentials: an origin has neither). */
  readonly #origin: string;

  constructor(options: ResolvedOptions) {
    this.#options = options;
    this.#origin = new URL(options.baseUrl).origin;
    this.strict = options.strict;
    this.redact = options.redact;
    this.middleware = options.middleware;
    this.#tel = telemetry(options.telemetry, options.baseUrl);
    this.credentials = credentialsOf(options.apiKey, options.signingSecret);
    this.#send = createSendStep({
      fetch: options.fetch,
      middleware: options.middleware,
      headers: this.credentials,
      baseUrl: options.baseUrl,
      userAgent: options.userAgent,
    });
    // Everything constant lives in the instance, and no headers or hooks are set there: ky merges an instance's
    // headers into two fresh Headers objects per call and its constructor two more, so the send step sets them on
    // the Request instead. A plain call then costs less than a bare `ky.get` with an auth header.
    this.#ky = ky.create({
      timeout: options.timeout,
      // The API never redirects: a 3xx is an error answer (see createApiError), never a hop that would re-send the
      // key, the body and the signature to another host.
      redirect: 'manual',
      // One attempt per ky call: whether and when to try again is `retryDecision`'s, asked by `#call`'s loop
      // (ky's `delay` never sees the failure, so it could not wait for the answer's own Retry-After).
      retry: 0,
    });
  }

  /** The client's `baseUrl`: the event stream's send step keeps its middleware inside it too. */
  get baseUrl(): string {
    return this.#options.baseUrl;
  }

  /** Absolute URL of a public API path. */
  url(path: string): string {
    return `${this.#options.baseUrl}${API_PREFIX}${path}`;
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

  async #call<T>(
    req: TransportRequest,
    parse: Parse<T>,
    rec: CallRecorder | undefined,
  ): Promise<ApiResult<T>> {
    const call = resolveCallOptions(req.options, this.#options);
    const started = this.#options.logger?.debug ? Date.now() : 0;
    const failed = (attempts: number): FailedCall => ({
      attempts,
      timeout: call.timeout,
      signal: call.signal,
      idempotencyKey: req.idempotencyKey,
    });
    if (call.signal?.aborted)
      throw markCall(new PspAbortError('The request was aborted by the caller'), failed(0));

    // ky makes one attempt (its own retries are off: see the constructor) with its timeout; between attempts
    // this loop asks `retryDecision` and waits with the SDK's one abortable sleep.
    let attempt = 1;
    const kyOptions: KyOptions = {
      method: req.method,
      fetch: (input, init) => this.#attempt(input as Request, init, attempt, req, rec, call),
    };
    // No body for ky: see `#attempt`.
    if (call.timeout !== this.#options.timeout) kyOptions.timeout = call.timeout;
    if (call.signal) kyOptions.signal = call.signal;

    let response: Response | undefined;
    while (!response) {
      try {
        response = await this.#ky(this.url(req.path), kyOptions);
      } catch (err) {
        const delayMs = this.#retryDelay(err, attempt, call, req);
        if (delayMs === undefined) throw await this.#fail(err, failed(attempt), req);
        await sleep(delayMs, call.signal);
        // Aborted while waiting: the call ends now, without another attempt.
        if (call.signal?.aborted) throw await this.#fail(err, failed(attempt), req);
        attempt++;
      }
    }
    let text: string;
    try {
      text = await readText(response, call.timeout, req.idempotencyKey);
    } catch (err) {
      throw await this.#fail(err, failed(attempt), req);
    }
    if (this.#options.logger?.debug) {
      log(this.#options.logger, 'debug', 'psp-sdk: response', {
        method: req.method,
        path: req.path,
        status: response.status,
        attempts: attempt,
        ms: Date.now() - started,
        headers: this.redact.headers(response.headers),
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
      logFailure(this.#options.logger, out, `${req.method} ${req.path}`);
      throw redactError(out, this.redact);
    }
    return {
      data,
      response,
      idempotencyKey: req.idempotencyKey,
      attempts: attempt,
      requestId: response.headers.get('x-request-id') ?? undefined,
    };
  }

  /**
   * The wait before the next attempt of a call whose attempt `attempt` failed with `err`, or undefined when the
   * failure is final (`retryDecision`'s answer). Logs the retry and releases the failed answer's connection.
   */
  #retryDelay(
    err: unknown,
    attempt: number,
    call: { timeout: number; maxRetries: number; signal?: AbortSignal | undefined },
    req: TransportRequest,
  ): number | undefined {
    // The caller's abort is final: the sleep would end at once anyway.
    const outcome = call.signal?.aborted ? FINAL : outcomeOf(err);
    const decision = retryDecision({
      attempt,
      maxRetries: call.maxRetries,
      safe: req.safe,
      outcome,
      timeout: call.timeout,
      maxRetryDelay: this.#options.maxRetryDelay,
    });
    if (!decision.retry) return undefined;
    // The failed answer's body is never read: release its connection.
    if (err instanceof HTTPError) void release(err.response.body);
    if (this.#options.logger?.info)
      log(this.#options.logger, 'info', 'psp-sdk: retrying', {
        method: req.method,
        url: this.url(req.path),
        attempt: attempt + 1,
        reason:
          'status' in outcome
            ? `HTTP ${outcome.status}`
            : outcome.failure === 'network'
              ? (err as Error).name
              : outcome.failure,
        delayMs: decision.delayMs,
      });
    return decision.delayMs;
  }

  /** One attempt: ky calls this in place of fetch, with the Request it built (headers mutable, no body). */
  #attempt(
    input: Request,
    init: RequestInit | undefined,
    attempt: number,
    req: TransportRequest,
    rec: CallRecorder | undefined,
    call: CallSettings,
  ): Promise<Response> {
    // The body joins here, per attempt, as the exact text (same method, headers and signal as ky's Request). Given
    // to ky, a body costs a tee of its stream on every call (ky clones the Request to keep one for a retry) and two
    // stream cancels at the end: about 7 % of a create in bench/suites/client.mjs.
    const request = req.body === undefined ? input : new Request(input, { body: req.body });
    // The call's own headers (checked: none of the SDK's) and fetch extras (under ky's init, which wins).
    if (call.headers)
      for (const [name, value] of Object.entries(call.headers)) request.headers.set(name, value);
    const fetchInit = call.fetchOptions ? ({ ...call.fetchOptions, ...init } as RequestInit) : init;
    const logger = this.#options.logger;
    if (logger?.debug) {
      log(logger, 'debug', 'psp-sdk: request', {
        method: request.method,
        url: request.url,
        attempt,
        idempotencyKey: req.idempotencyKey,
      });
    }
    // Built only for a middleware or a recorder: a plain call computes no template.
    const template =
      rec || this.middleware.length ? `${API_PREFIX}${req.template ?? templateOf(req.path)}` : '';
    const end = rec?.attempt(request.method, template, attempt);
    end?.inject?.(request.headers);
    const sent = this.#send(
      request,
      { operation: req.operation, attempt, idempotencyKey: req.idempotencyKey, urlTemplate: template },
      req.body,
      fetchInit,
    );
    if (!end) return sent;
    return sent.then(
      (res) => {
        end(res.status);
        return res;
      },
      (err: unknown) => {
        end(undefined, request.signal.aborted ? 'timeout' : err instanceof Error ? err.name : 'error');
        throw err;
      },
    );
  }

  async #fail(err: unknown, call: FailedCall, req: TransportRequest): Promise<PspError> {
    const out = redactError(
      await toPspError(err, call, `${req.method} ${req.path}`, this.#origin),
      this.redact,
    );
    logFailure(this.#options.logger, out, `${req.method} ${req.path}`);
    return out;
  }
}
