import type { PaymentWebhookEvent, PayoutWebhookEvent } from '../schemas/events.js';
import type { PaymentWebhookEventName, PayoutWebhookEventName, WebhookEventName } from '../schemas/names.js';

export type { PaymentWebhookEvent, PayoutWebhookEvent } from '../schemas/events.js';
export type { PaymentWebhookEventName, PayoutWebhookEventName, WebhookEventName } from '../schemas/names.js';

/**
 * The type of an event name this SDK version does not know. TypeScript cannot say "any string except the known
 * names", so this is a type-level marker: at run time the value is the name exactly as sent. The marker makes
 * `event.event === 'payment.succeeded'` narrow to the payment variant alone (a plain `string` here would keep
 * the unknown variant in every branch and blur `data`). It is assignable to `string`; compare it against names
 * newer than this SDK through a cast: `(event.event as string) === 'payment.disputed'`.
 */
export type UnknownWebhookEventName = `<unknown event> ${string}`;

/** A webhook of a kind newer than this SDK: passed through untouched so you can still acknowledge it. */
export interface UnknownWebhookEvent {
  id: string;
  event: UnknownWebhookEventName;
  created_at?: string | null | undefined;
  data: Record<string, unknown>;
}

/** A webhook this SDK knows, discriminated by `event`. */
export type KnownWebhookEvent =
  | { [N in PaymentWebhookEventName]: PaymentWebhookEvent<N> }[PaymentWebhookEventName]
  | { [N in PayoutWebhookEventName]: PayoutWebhookEvent<N> }[PayoutWebhookEventName];

/**
 * A verified webhook (spec 2.10): narrowing on `event` gives the precise `data` type.
 *
 * @example
 * if (event.event === 'payment.refunded') console.log(event.data.amount_refunded);
 * else if (event.event === 'payout.failed') console.log(event.data.fail_reason);
 */
export type WebhookEvent = KnownWebhookEvent | UnknownWebhookEvent;

/** The event type for one name: `WebhookEventOf<'payout.failed'>` is a payout webhook. */
export type WebhookEventOf<N extends WebhookEventName> = Extract<KnownWebhookEvent, { event: N }>;
