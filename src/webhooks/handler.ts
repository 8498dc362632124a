import type { WebhookVerificationError } from './errors.js';
import type { WebhookEvent, WebhookEventName, WebhookEventOf } from './types.js';
import { type VerifyWebhookOptions, verifyWebhook, type WebhookSecret } from './verify.js';

/** Per-event handlers: each receives the event typed for its name. */
export type WebhookHandlers = {
  [N in WebhookEventName]?: (event: WebhookEventOf<N>) => unknown;
};

/** Options of {@link createWebhookHandler}. */
export interface WebhookHandlerOptions extends VerifyWebhookOptions {
  /** The endpoint's `whs_...` secret, or several while rotating. */
  secret: WebhookSecret;
  /** Handlers by event name; may return a promise, which is awaited before the 2xx. */
  on?: WebhookHandlers;
  /** Runs for verified events without an entry in `on`, including names newer than this SDK. */
  fallback?: (event: WebhookEvent) => unknown;
  /**
   * Told when a handler throws (the answer is then 500, so the service retries). Default: `console.error`.
   */
  onError?: (error: unknown, event: WebhookEvent) => void;
}

const reply = (status: number, body: object) => Response.json(body, { status });

/**
 * A fetch-style receiver for Deno.serve, Bun.serve, hono, Next.js route handlers and anything else that speaks
 * `Request`/`Response`. It verifies the signature, runs the handler for the event's name and answers:
 * 200 once handled (also when no handler matches: acknowledged, not retried); 400 `{ error: reason }` on a bad
 * signature or body; 405 for a method other than POST; 500 when a handler throws or
 * the secret is misconfigured, so the service delivers again later.
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
  const { on = {}, fallback } = options;
  const onError = options.onError ?? console.error;
  return async (request) => {
    if (request.method !== 'POST') return reply(405, { error: 'method_not_allowed' });
    const body = new Uint8Array(await request.arrayBuffer());
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
      ? (on as Record<string, (e: WebhookEvent) => unknown>)[event.event]
      : fallback;
    try {
      await fn?.(event);
    } catch (e) {
      onError(e, event);
      return reply(500, { error: 'handler_failed' });
    }
    return reply(200, { received: true });
  };
}
