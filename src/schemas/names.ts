// The name lists of the spec, with no zod, so an entry can ship one without pulling in the schemas.

/**
 * The webhook event names (spec 6.1), as `WebhookEventName` lists them.
 *
 * @example
 * const known = (WEBHOOK_EVENTS as readonly string[]).includes(event.event);
 */
export const WEBHOOK_EVENTS = [
  'payment.succeeded',
  'payment.failed',
  'payment.cancelled',
  'payment.expired',
  'payment.refunded',
  'payout.succeeded',
  'payout.failed',
] as const;
export type WebhookEventName = (typeof WEBHOOK_EVENTS)[number];
export type PaymentWebhookEventName = Extract<WebhookEventName, `payment.${string}`>;
export type PayoutWebhookEventName = Extract<WebhookEventName, `payout.${string}`>;

/**
 * The event stream's kinds (spec 6.2): internal platform events, not the webhook names.
 *
 * @example
 * for await (const ev of client.events.stream()) if (SSE_KINDS.includes(ev.kind)) console.log(ev.kind);
 */
export const SSE_KINDS = [
  'payment.created',
  'payment.status_changed',
  'payout.created',
  'payout.status_changed',
  'refund.created',
] as const;
export type SseKind = (typeof SSE_KINDS)[number];

/**
 * How an endpoint may sign its webhooks (spec 6.1): `v1` (legacy `sha256=`) or `v2` (timestamped, the default).
 *
 * @example
 * for (const version of SIGNATURE_VERSIONS) signWebhook(payload, secret, { version });
 */
export const SIGNATURE_VERSIONS = ['v1', 'v2'] as const;
/**
 * Signature scheme of an endpoint: `v2` (`t=..,v1=..,v2=..`, timestamped, the default) or `v1` (legacy `sha256=..`).
 *
 * @example signWebhook(payload, secret, { version: 'v1' satisfies SignatureVersion })
 */
export type SignatureVersion = (typeof SIGNATURE_VERSIONS)[number];
