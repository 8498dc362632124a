import { Banks } from './resources/banks.js';
import { type Events, eventsOf } from './resources/events.js';
import { Payments } from './resources/payments.js';
import { Payouts } from './resources/payouts.js';
import { ApiPromise } from './client/api-promise.js';
import { INSPECT } from './client/base-errors.js';
import { type ClientOptions, type RequestOptions, resolveOptions } from './client/options.js';
import { Transport } from './client/transport.js';
import {
  assertNoIssues,
  idempotencyKeyIssue,
  jsonBody,
  pathIssue,
  templateIssue,
} from './client/validate.js';

/**
 * Options of {@link PspClient.request}.
 *
 * @example
 * await client.request('POST', '/payment-links', { body: { amount: 100 }, idempotencyKey: 'k-1' }); // newer than this SDK
 */
export interface RawRequestOptions extends RequestOptions {
  /** A JSON-serialisable body. */
  body?: unknown;
  /**
   * The path as spans, metric labels and middleware name it: `path` with `{name}` in place of each segment that
   * varies, e.g. `'/customers/{customer}/cards'`. Default: the path with every segment that is not a word of the
   * API's own paths (`payments`, `refund`, `banks`, ...) replaced by `{id}`, so that no id or personal detail
   * becomes a span name or a label.
   */
  template?: string | undefined;
}

/**
 * The typed client of the Payment Service Public API. Safe to share: one instance per API key serves any number
 * of concurrent calls. Neither `util.inspect(client)` nor `JSON.stringify(client)` shows the key.
 *
 * - Every method checks its input first (a `PspValidationError` names each bad field; nothing is sent).
 * - The three creates always send an `Idempotency-Key`, identical on every retry; read it with
 *   `.withResponse()` or from the error (`err.idempotencyKey`).
 * - Requests safe to repeat (GETs, the keyed creates, cancel) are retried on 408, 429, 5xx but 501, timeouts and
 *   connection failures, `maxRetries` times (default 2), with full-jitter backoff or the server's `Retry-After`.
 * - Failures are typed: `PspApiError` subclasses by code, then status; `PspTimeoutError`, `PspAbortError`,
 *   `PspConnectionError`, `PspResponseError`.
 *
 * @example
 * import { PspClient } from 'psp-sdk';
 *
 * const client = new PspClient({ apiKey: process.env.PSP_API_KEY, baseUrl: 'https://psp.example.com' });
 * const { payment, payment_url } = await client.payments.create({ amount: 249_900, order_id: 'A-1042' });
 * const paid = await client.payments.get(payment.id);
 */
export class PspClient {
  /** `test` for an `sk_test_` key (the simulator), `live` for an `sk_live_` key (the real bank). */
  readonly mode: 'test' | 'live';
  /** The service address requests go to (without `/api/v1/public`). */
  readonly baseUrl: string;
  /** Payments: create, get, cancel, refund. */
  readonly payments: Payments;
  /** SBP payouts: create, get. */
  readonly payouts: Payouts;
  /** The SBP bank directory, cached in memory. */
  readonly banks: Banks;
  /** The realtime event stream. */
  readonly events: Events;
  readonly #transport: Transport;
  /** The options as given, for {@link PspClient.withOptions}; private, so never shown or serialized. */
  readonly #given: ClientOptions;

  /**
   * Checks the options (see {@link ClientOptions} for defaults) and throws `PspValidationError` naming every
   * bad one; the error never contains the key or the signing secret.
   */
  constructor(options: ClientOptions = {}) {
    const o = resolveOptions(options);
    this.#given = { ...options };
    this.mode = o.mode;
    this.baseUrl = o.baseUrl;
    this.#transport = new Transport(o);
    this.payments = new Payments(this.#transport);
    this.payouts = new Payouts(this.#transport);
    this.banks = new Banks(this.#transport, o.banksCacheTtl);
    this.events = eventsOf(this.#transport, o.fetch, o.logger, o.userAgent);
  }

  /**
   * Sends any request under `/api/v1/public` with the client's auth, signing, timeouts and errors, and returns
   * the parsed JSON unchecked: for endpoints newer than this SDK. A POST is retried only when it carries an
   * `idempotencyKey`; a GET always is. A path that could leave `/api/v1/public` (a `..` or `.` segment, plain or
   * percent-encoded, a backslash, `//host`, an absolute URL, a query or fragment) is refused with
   * `PspValidationError` before anything is sent.
   *
   * @example
   * const raw = await client.request<{ items: unknown[] }>('GET', '/payment-links'); // an endpoint newer than this SDK
   * await client.request('GET', `/customers/${customerId}`, { template: '/customers/{customer}' });
   */
  request<T = unknown>(method: 'GET' | 'POST', path: string, options: RawRequestOptions = {}): ApiPromise<T> {
    return new ApiPromise(
      (async () => {
        const issues = [
          ...idempotencyKeyIssue(options.idempotencyKey),
          ...pathIssue(path),
          ...templateIssue(options.template, String(path)),
        ];
        if (method !== 'GET' && method !== 'POST')
          issues.push({ field: 'method', message: 'must be GET or POST' });
        assertNoIssues(issues);
        return this.#transport.request(
          {
            operation: 'request',
            template: options.template,
            method,
            path,
            body: options.body === undefined ? undefined : jsonBody(options.body),
            idempotencyKey: options.idempotencyKey,
            safe: method === 'GET' || options.idempotencyKey !== undefined,
            options,
          },
          (json) => json as T,
        );
      })(),
    );
  }

  /**
   * A new client with `options` over this one's (as given to the constructor, environment defaults read again):
   * another timeout, retries, `fetchOptions` or logger for one part of an app. Nothing is shared but what the options
   * hold (a `fetch`, a logger): each client has its own transport, bank cache and event streams.
   *
   * @example
   * const patient = client.withOptions({ timeout: 60_000, maxRetries: 5 });
   * await patient.payouts.create(input);
   */
  withOptions(options: ClientOptions): PspClient {
    return new PspClient({ ...this.#given, ...options });
  }

  /** What `JSON.stringify(client)` shows: never the key. */
  toJSON(): { mode: 'test' | 'live'; baseUrl: string } {
    return { mode: this.mode, baseUrl: this.baseUrl };
  }

  /** @internal What `util.inspect(client)` shows: the same fields as `toJSON()`. */
  [INSPECT](_depth: number, options: unknown, inspect?: (v: unknown, o: unknown) => string): string {
    return `PspClient ${inspect ? inspect(this.toJSON(), options) : JSON.stringify(this)}`;
  }
}
