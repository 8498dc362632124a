import ky, { HTTPError, type KyInstance, type Options as KyOptions, TimeoutError } from 'ky';
import type { ApiResult } from './api-promise.js';
import {
  createApiError,
  PspAbortError,
  PspConnectionError,
  PspError,
  PspResponseError,
  PspTimeoutError,
  parseRetryAfter,
} from './errors.js';
import { log, redactSecrets, safeHeaders } from './logger.js';
import { type RequestOptions, type ResolvedOptions, resolveCallOptions } from './options.js';
import { createSigner, type Signer } from './sign.js';

/** One API call as the resources describe it. */
export interface TransportRequest {
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

/** Per-call state the ky hooks read and update through `context`. */
interface CallState {
  attempts: number;
  body: string;
  timeout: number;
  signal: AbortSignal | undefined;
  idempotencyKey: string | undefined;
  started: number;
}

const API_PREFIX = '/api/v1/public';
const RETRY_STATUSES = [408, 429, ...Array.from({ length: 100 }, (_, i) => 500 + i)];

type Parse<T> = (json: unknown, status: number) => T;

/**
 * The HTTP layer: ky does attempts, per-attempt timeouts, backoff with full jitter, `Retry-After` and the
 * abortable sleep; this class adds what ky lacks: signing each attempt, counting attempts, failing fast when a
 * `Retry-After` outlasts the call's timeout, and turning every failure into a typed, secret-free error.
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
  /** `sha256=<hex>` of the empty body, for body-less requests made outside ky (the event stream). */
  #emptySignature: string | undefined;
  #emptySignatureReady: Promise<void> | undefined;

  constructor(options: ResolvedOptions) {
    this.#o = options;
    this.#auth = `Bearer ${options.apiKey}`;
    if (options.signingSecret) {
      const sign = createSigner(options.signingSecret);
      this.#sign = sign;
      const empty = sign('');
      if (typeof empty === 'string') this.#emptySignature = `sha256=${empty}`;
      else {
        this.#emptySignatureReady = empty.then(
          (hex) => {
            this.#emptySignature = `sha256=${hex}`;
            this.#emptySignatureReady = undefined;
          },
          () => {
            this.#emptySignatureReady = undefined;
          },
        );
      }
    }
    this.#ky = ky.create({
      fetch: options.fetch,
      throwHttpErrors: true,
      retry: {
        methods: ['get', 'post'],
        statusCodes: RETRY_STATUSES,
        afterStatusCodes: [429, 503],
        maxRetryAfter: options.maxRetryDelay,
        backoffLimit: options.maxRetryDelay,
        delay: (n) => 500 * 2 ** (n - 1),
        jitter: true,
        retryOnTimeout: true,
      },
      hooks: {
        beforeRequest: [(request, opts, { retryCount }) => this.#beforeRequest(request, opts, retryCount)],
        beforeRetry: [({ request, error, retryCount }) => this.#beforeRetry(request, error, retryCount)],
      },
    });
  }

  /** Absolute URL of a public API path. */
  url(path: string): string {
    return `${this.#o.baseUrl}${API_PREFIX}${path}`;
  }

  /** The headers of a GET without body: bearer auth and, when signing, the signature of the empty string. */
  getHeaders(): Record<string, string> {
    const h: Record<string, string> = { authorization: this.#auth };
    if (this.#emptySignature) h['x-psp-signature'] = this.#emptySignature;
    return h;
  }

  /** Pending while an async (WebCrypto) signer computes the empty-body signature; undefined once ready. */
  headersReady(): Promise<void> | undefined {
    return this.#emptySignatureReady;
  }

  /**
   * Sends one call (with its retries) and parses the answer with `parse`.
   * Throws a {@link PspError} subclass on every failure, never a ky or fetch error.
   */
  async request<T>(req: TransportRequest, parse: Parse<T>): Promise<ApiResult<T>> {
    const call = resolveCallOptions(req.options, this.#o);
    const state: CallState = {
      attempts: 0,
      body: req.body ?? '',
      timeout: call.timeout,
      signal: call.signal,
      idempotencyKey: req.idempotencyKey,
      started: Date.now(),
    };
    if (call.signal?.aborted)
      throw this.#mark(new PspAbortError('The request was aborted by the caller'), state);

    const headers: Record<string, string> = { authorization: this.#auth, accept: 'application/json' };
    if (req.body !== undefined) headers['content-type'] = 'application/json';
    if (req.idempotencyKey !== undefined) headers['idempotency-key'] = req.idempotencyKey;
    const kyOptions: KyOptions = {
      method: req.method,
      headers,
      body: req.body,
      timeout: call.timeout,
      signal: call.signal,
      retry: {
        limit: req.safe ? call.maxRetries : 0,
        shouldRetry: ({ error }) => this.#shouldRetry(error, state),
      },
      context: { state },
    };

    let response: Response;
    let text: string;
    try {
      response = await this.#ky(this.url(req.path), kyOptions);
      text = await response.text();
    } catch (err) {
      throw await this.#toError(err, state, req);
    }
    if (this.#o.logger) {
      log(this.#o.logger, 'debug', 'psp-sdk: response', {
        method: req.method,
        path: req.path,
        status: response.status,
        attempts: state.attempts,
        ms: Date.now() - state.started,
        headers: safeHeaders(response.headers),
      });
    }
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      throw new PspResponseError(
        `The ${req.method} ${req.path} answer (HTTP ${response.status}) is not JSON`,
        response.status,
        [],
        req.idempotencyKey,
      );
    }
    let data: T;
    try {
      data = parse(json, response.status);
    } catch (err) {
      if (err instanceof PspResponseError) err.idempotencyKey = req.idempotencyKey;
      throw err;
    }
    return {
      data,
      response,
      idempotencyKey: req.idempotencyKey,
      attempts: state.attempts,
      requestId: response.headers.get('x-request-id') ?? undefined,
    };
  }

  #beforeRequest(
    request: Request,
    opts: { context: Record<string, unknown> },
    retryCount: number,
  ): undefined | Promise<undefined> {
    const state = opts.context.state as CallState;
    state.attempts = retryCount + 1;
    if (this.#o.logger) this.#logRequest(request, state);
    if (!this.#sign) return;
    // Per attempt, over the exact text handed to fetch (fetch encodes a string body as UTF-8, as HMAC does).
    const hex = this.#sign(state.body);
    if (typeof hex === 'string') request.headers.set('x-psp-signature', `sha256=${hex}`);
    else return hex.then((h) => void request.headers.set('x-psp-signature', `sha256=${h}`));
  }

  #logRequest(request: Request, state: CallState): void {
    log(this.#o.logger, 'debug', 'psp-sdk: request', {
      method: request.method,
      url: request.url,
      attempt: state.attempts,
      idempotencyKey: state.idempotencyKey,
    });
  }

  #beforeRetry(request: Request, error: Error, retryCount: number): void {
    // The failed answer's body is never read: release its connection.
    if (error instanceof HTTPError) void error.response.body?.cancel().catch(() => undefined);
    if (this.#o.logger) {
      log(this.#o.logger, 'info', 'psp-sdk: retrying', {
        method: request.method,
        url: request.url,
        attempt: retryCount + 1,
        reason: error instanceof HTTPError ? `HTTP ${error.response.status}` : error.name,
      });
    }
  }

  #shouldRetry(error: Error, state: CallState): boolean | undefined {
    if (state.signal?.aborted) return false;
    if (error instanceof PspError) return false;
    if (error instanceof HTTPError && error.response.status === 429) {
      const wait = parseRetryAfter(error.response.headers.get('retry-after'), Date.now());
      // A wait longer than the caller is prepared to spend on this call: answer now, with retryAfter.
      if (wait !== undefined && wait > state.timeout) return false;
    }
    return undefined; // ky decides: status list, Retry-After (clamped), backoff with jitter.
  }

  #mark<E extends PspError & { attempts: number; idempotencyKey?: string }>(err: E, state: CallState): E {
    err.attempts = Math.max(1, state.attempts);
    if (state.idempotencyKey !== undefined) err.idempotencyKey = state.idempotencyKey;
    return err;
  }

  async #toError(err: unknown, state: CallState, req: TransportRequest): Promise<PspError> {
    const attempts = Math.max(1, state.attempts);
    let out: PspError;
    if (err instanceof PspError) {
      out = err;
    } else if (state.signal?.aborted) {
      out = this.#mark(new PspAbortError(`${req.method} ${req.path} was aborted by the caller`), state);
    } else if (err instanceof HTTPError) {
      const res = err.response;
      let body: unknown;
      try {
        const text = await res.text();
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
      } catch {
        body = undefined;
      }
      out = createApiError({
        status: res.status,
        body,
        headers: res.headers,
        idempotencyKey: state.idempotencyKey,
        attempts,
      });
    } else if (err instanceof TimeoutError) {
      // No cause: ky's error holds the Request, and with it the Authorization header.
      out = this.#mark(
        new PspTimeoutError(
          `${req.method} ${req.path} timed out after ${state.timeout} ms (attempt ${attempts})`,
        ),
        state,
      );
    } else {
      const e = err instanceof Error ? err : undefined;
      const detail = e ? `: ${redactSecrets(e.message)}` : '';
      out = this.#mark(
        new PspConnectionError(`${req.method} ${req.path} failed to connect${detail}`, { cause: err }),
        state,
      );
    }
    if (this.#o.logger) {
      log(this.#o.logger, 'debug', 'psp-sdk: failed', {
        method: req.method,
        path: req.path,
        error: out.toJSON(),
      });
    }
    return out;
  }
}
