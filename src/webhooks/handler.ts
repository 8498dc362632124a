import type { WebhookVerificationError } from './errors.js';
import { header, readBounded } from './input.js';
import { hmacSha256Hex } from '../internal/hmac.js';
import {
  logWebhookError,
  onceWebhook,
  type OnceWebhookOptions,
  type WebhookDedupe,
  type WebhookRunContext,
} from './once.js';
import { parseSignatureHeader } from './signature.js';
import type { WebhookEvent, WebhookEventName, WebhookEventOf } from './types.js';
import { type VerifyWebhookOptions, verifyWebhook, type WebhookSecret } from './verify.js';

/**
 * Per-event handlers: each receives the event typed for its name, and the run's `{ signal, fence }` (see
 * `WebhookRunContext`; they matter with `dedupe`).
 *
 * @example
 * const on: WebhookHandlers = { 'payment.succeeded': (event, { fence }) => markPaid(event.data.order_id, fence) };
 */
export type WebhookHandlers = {
  [N in WebhookEventName]?: (event: WebhookEventOf<N>, context: WebhookRunContext) => unknown;
};

/** Options of {@link createWebhookHandler}. */
export interface WebhookHandlerOptions
  extends VerifyWebhookOptions,
    Pick<OnceWebhookOptions, 'onStoreError' | 'storeTimeoutMs'> {
  /** The endpoint's `whs_...` secret, or several while rotating. */
  secret: WebhookSecret;
  /** Handlers by event name; may return a promise, which is awaited before the 2xx. */
  on?: WebhookHandlers | undefined;
  /** Runs for verified events without an entry in `on`, including names newer than this SDK. */
  fallback?: ((event: WebhookEvent, context: WebhookRunContext) => unknown) | undefined;
  /**
   * Told when a handler throws (the answer is then 500, so the service retries), and about dedupe store errors.
   * Default: `logWebhookError`, a `console.error` line with the event's id, name and the error, never its data.
   */
  onError?: ((error: unknown, event: WebhookEvent) => void) | undefined;
  /**
   * A shared store that makes each event's handler run once across replicas: `redisDedupe(client)` or
   * `memoryDedupe()` from `psp-sdk/replicas`. Answers then also include 409 (running on another replica) and 503
   * (store unreachable); see `onceWebhook`. Default: none, every delivery runs its handler.
   */
  dedupe?: WebhookDedupe | undefined;
  /**
   * The app's namespace in the dedupe store: the service sends every endpoint of a shop the same event id, so
   * two apps (fulfilment and ledger) on one Redis must not share keys, or each event runs in only one of them.
   * Default: a short keyed digest of `secret` (of its first entry while rotating), which differs per endpoint and
   * never reveals the secret; the done markers then change with the secret, so set `app` to keep them through a
   * rotation. `''` uses the bare event id (the keys of earlier versions).
   *
   * @example
   * createWebhookHandler({ secret, dedupe: redisDedupe(redis), app: 'fulfilment', on })
   */
  app?: string | undefined;
  /**
   * Largest body read, in bytes; a larger one is answered 413 `payload_too_large` without being read whole.
   * Default 1 MiB, far above any real event.
   */
  maxBodyBytes?: number | undefined;
  /**
   * Most milliseconds the body may take to arrive whole, from the first read; a slower one is answered 408
   * `request_timeout` and cancelled, so stalled uploads cannot hold the receiver's memory until the server's own
   * timeout (node: 300 s). The service sends an event at once. Default 10 000.
   */
  bodyTimeoutMs?: number | undefined;
}

// The header's shape, checked without the body: a missing or malformed X-PSP-Signature can never verify.
function signatureProblem(headers: Headers): string | undefined {
  const value = header(headers, 'x-psp-signature')?.trim();
  if (!value) return 'missing_signature';
  try {
    parseSignatureHeader(value);
  } catch (e) {
    return (e as WebhookVerificationError).reason;
  }
  return undefined;
}

const reply = (status: number, body: object, headers?: Record<string, string>) =>
  Response.json(body, { status, headers });

/**
 * A fetch-style receiver for Deno.serve, Bun.serve, hono, Next.js route handlers and anything else that speaks
 * `Request`/`Response`. It checks the signature header, reads the body up to `maxBodyBytes`, verifies, runs the
 * handler for the event's name and answers:
 * 200 once handled (also when no handler matches: acknowledged, not retried); 400 `{ error: reason }` on a bad
 * signature or body (a missing or malformed signature header is refused before the body is read); 405 for a
 * method other than POST; 408 `request_timeout` for a body slower than `bodyTimeoutMs`; 413 `payload_too_large` past
 * `maxBodyBytes`; 500 when a handler throws or the secret
 * is misconfigured, so the service delivers again later. With `dedupe`: also 200 `duplicate` for an event already
 * handled, 409 for one running on another replica and 503 when the store is unreachable.
 *
 * @example
 * const handle = createWebhookHandler({
 *   secret: process.env.PSP_WEBHOOK_SECRET!,
 *   on: {
 *     'payment.succeeded': async (event) => markPaid(event.data.order_id),
 *     'payout.failed': (event) => alert(event.data.fail_reason),
 *   },
 * });
 * Deno.serve((request) => handle(request));
 */
export function createWebhookHandler(
  options: WebhookHandlerOptions,
): (request: Request) => Promise<Response> {
  const { on = {}, fallback, dedupe, maxBodyBytes = 1 << 20, bodyTimeoutMs = 10_000 } = options;
  const onError = options.onError ?? logWebhookError;
  const first = typeof options.secret === 'string' ? options.secret : options.secret?.[0];
  // Keyed by the secret, over a fixed label: the same app gets the same name on every replica, and the name
  // tells nothing of the secret. A missing secret is refused at verification (500), never here.
  const app =
    options.app ?? (first ? `a${hmacSha256Hex(first, 'psp-sdk dedupe namespace').slice(0, 12)}` : '');
  if (![maxBodyBytes, bodyTimeoutMs].every((v) => Number.isSafeInteger(v) && v > 0))
    throw new TypeError('createWebhookHandler: maxBodyBytes and bodyTimeoutMs must be positive integers');
  return async (request) => {
    if (request.method !== 'POST') return reply(405, { error: 'method_not_allowed' });
    // The header first: an unsigned request is refused before a byte of its body is read.
    const refused = signatureProblem(request.headers);
    if (refused) {
      await request.body?.cancel().catch(() => {});
      return reply(400, { error: refused });
    }
    const body = await readBounded(request, maxBodyBytes, bodyTimeoutMs);
    if (body === 'too_large') return reply(413, { error: 'payload_too_large' });
    if (body === 'timeout') return reply(408, { error: 'request_timeout' });
    let event: WebhookEvent;
    // Misconfiguration is the receiver's fault, not the request's: 500, so the service retries after the fix.
    try {
      event = verifyWebhook(body, request.headers, options.secret, options);
    } catch (e) {
      const reason = (e as WebhookVerificationError).reason;
      return reply(!reason || /secret|options/.test(reason) ? 500 : 400, {
        error: reason ?? 'internal_error',
      });
    }
    // Own keys only: an event named like an Object.prototype member must not reach `toString` or `constructor`.
    const fn = Object.hasOwn(on, event.event)
      ? (on as Record<string, (e: WebhookEvent, c: WebhookRunContext) => unknown>)[event.event]
      : fallback;
    // Nothing to run: acknowledged without asking the store.
    if (!fn) return reply(200, { received: true });
    const answer = await onceWebhook(dedupe, event, fn, {
      onError,
      onStoreError: options.onStoreError,
      storeTimeoutMs: options.storeTimeoutMs,
      app,
    });
    return reply(answer.status, answer.body, answer.headers);
  };
}
