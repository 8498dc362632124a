import * as z from 'zod/mini';
import { obj, perMode, present, type SchemaMode, timestamp } from './common.js';
import type { PaymentWebhookEventName, PayoutWebhookEventName } from './names.js';
import { responseSchemas } from './resources.js';

function build(m: SchemaMode) {
  const r = responseSchemas(m.strict);
  const envelope = <D extends z.ZodMiniType>(data: D) =>
    obj(m, { id: z.string(), event: z.string(), created_at: present(m, timestamp(m)), data });

  const PaymentWebhookEnvelope = envelope(r.WebhookPayment);
  const PayoutWebhookEnvelope = envelope(r.Payout);

  // SSE payloads. The spec fixes `id` and `status` for payment events and `amount` for payment.created; the rest
  // is our decision (docs/spec-decisions.md). Payloads are loose in both modes: the stream is best-effort and the
  // spec lets payload shapes grow.
  const status = () => z.string();
  const PaymentCreatedPayload = z.looseObject({
    id: z.string(),
    status: status(),
    amount: z.number(),
    currency: z.optional(z.string()),
    order_id: z.optional(z.nullable(z.string())),
  });
  const StatusChangedPayload = z.looseObject({
    id: z.string(),
    status: status(),
    previous_status: z.optional(z.nullable(z.string())),
  });
  const PayoutCreatedPayload = z.looseObject({
    id: z.string(),
    status: status(),
    amount: z.optional(z.number()),
    currency: z.optional(z.string()),
  });
  const RefundCreatedPayload = z.looseObject({
    id: z.string(),
    payment_id: z.string(),
    status: status(),
    amount: z.optional(z.number()),
  });
  const SseEnvelope = z.looseObject({
    kind: z.string(),
    payload: z.record(z.string(), z.unknown()),
    at: z.string(),
  });

  return {
    PaymentWebhookEnvelope,
    PayoutWebhookEnvelope,
    PaymentCreatedPayload,
    StatusChangedPayload,
    PayoutCreatedPayload,
    RefundCreatedPayload,
    SseEnvelope,
  };
}

export const eventSchemas = perMode(build);
type E = ReturnType<typeof build>;

type PaymentEnvelope = z.output<E['PaymentWebhookEnvelope']>;
type PayoutEnvelope = z.output<E['PayoutWebhookEnvelope']>;

/** A payment webhook (spec 2.10): `data` is the payment as GET returns it, plus `shop_id`. */
export type PaymentWebhookEvent<N extends PaymentWebhookEventName = PaymentWebhookEventName> = Omit<
  PaymentEnvelope,
  'event'
> & { event: N };
/** A payout webhook (spec 2.10): `data` is the payout as GET returns it. */
export type PayoutWebhookEvent<N extends PayoutWebhookEventName = PayoutWebhookEventName> = Omit<
  PayoutEnvelope,
  'event'
> & { event: N };

export type PaymentCreatedPayload = z.output<E['PaymentCreatedPayload']>;
export type StatusChangedPayload = z.output<E['StatusChangedPayload']>;
export type PayoutCreatedPayload = z.output<E['PayoutCreatedPayload']>;
export type RefundCreatedPayload = z.output<E['RefundCreatedPayload']>;

interface SseBase<K extends string, P> {
  kind: K;
  payload: P;
  /** RFC 3339 time of the event on the service clock. */
  at: string;
}
/** One message of the realtime stream (spec 2.11), typed by `kind`. */
export type SseEvent =
  | SseBase<'payment.created', PaymentCreatedPayload>
  | SseBase<'payment.status_changed', StatusChangedPayload>
  | SseBase<'payout.created', PayoutCreatedPayload>
  | SseBase<'payout.status_changed', StatusChangedPayload>
  | SseBase<'refund.created', RefundCreatedPayload>;
