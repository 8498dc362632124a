import * as z from 'zod/mini';
import {
  arrayOf,
  bool,
  minorUnits,
  num,
  nullable,
  obj,
  openEnum,
  optional,
  perMode,
  present,
  type SchemaMode,
  str,
  stringMap,
  timestamp,
  uuid,
} from './common.js';
import { MODES, PAYMENT_METHODS, PAYMENT_STATUSES, PAYOUT_STATUSES, REFUND_STATUSES } from './limits.js';

// Over 80 lines: the wire schemas of spec section 2, one per resource, built together for strict or lenient.
function build(m: SchemaMode) {
  const Refund = obj(m, {
    id: uuid(m),
    payment_id: present(m, uuid(m)),
    merchant_id: present(m, uuid(m)),
    amount: present(m, minorUnits()),
    reason: nullable(m, str()),
    status: present(m, openEnum(m, REFUND_STATUSES)),
    created_at: present(m, timestamp(m)),
    completed_at: nullable(m, timestamp(m)),
  });

  const paymentShape = {
    id: uuid(m),
    merchant_id: present(m, uuid(m)),
    terminal_id: present(m, uuid(m)),
    terminal_name: nullable(m, str()),
    order_id: nullable(m, str()),
    amount: present(m, minorUnits()),
    amount_refunded: present(m, minorUnits()),
    amount_usdt: nullable(m, num()),
    currency: present(m, str()),
    method: present(m, openEnum(m, PAYMENT_METHODS)),
    status: present(m, openEnum(m, PAYMENT_STATUSES)),
    rrn: nullable(m, str()),
    bank_name: nullable(m, str()),
    return_url: nullable(m, str()),
    created_at: present(m, timestamp(m)),
    captured_at: nullable(m, timestamp(m)),
    finalized_at: nullable(m, timestamp(m)),
    expires_at: nullable(m, timestamp(m)),
    processing_until: nullable(m, timestamp(m)),
    metadata: nullable(m, stringMap()),
    customer_card_brand: nullable(m, str()),
    customer_card_mask: nullable(m, str()),
    customer_card_holder: nullable(m, str()),
    customer_phone_mask: nullable(m, str()),
    customer_payer_bank: nullable(m, str()),
    refunds: present(m, arrayOf(Refund)),
  };
  const Payment = obj(m, paymentShape);
  /** The payment as a webhook's `data` carries it: the GET fields plus `shop_id` (spec 2.1). */
  const WebhookPayment = obj(m, { ...paymentShape, shop_id: present(m, uuid(m)) });

  const CreatePaymentResponse = obj(m, {
    payment: Payment,
    payment_url: present(m, str()),
    mode: present(m, openEnum(m, MODES)),
    idempotent: optional(m, bool()),
    simulator: optional(m, str()),
    bank: optional(m, str()),
    bank_ref: optional(m, str()),
    failure_code: optional(m, str()),
    failure_message: optional(m, str()),
  });

  const CancelPaymentResponse = obj(m, { status: present(m, openEnum(m, ['cancelled'])) });

  const Payout = obj(m, {
    id: uuid(m),
    merchant_id: present(m, uuid(m)),
    terminal_id: present(m, uuid(m)),
    amount: present(m, minorUnits()),
    currency: present(m, str()),
    method: present(m, str()),
    status: present(m, openEnum(m, PAYOUT_STATUSES)),
    fail_reason: nullable(m, str()),
    recipient: present(
      m,
      obj(m, { phone: present(m, str()), bank_id: present(m, str()), full_name: nullable(m, str()) }),
    ),
    created_at: present(m, timestamp(m)),
    completed_at: nullable(m, timestamp(m)),
  });

  // Spec 2.6 marks no field required; `payout` is still required here because a creation answer without the object
  // is not a creation answer (docs/spec-decisions.md).
  const CreatePayoutResponse = obj(m, {
    payout: Payout,
    mode: optional(m, openEnum(m, MODES)),
    idempotent: optional(m, bool()),
    simulator: optional(m, str()),
    bank: optional(m, str()),
    bank_ref: optional(m, str()),
    failure_reason: optional(m, str()),
  });

  const SBPBank = obj(m, {
    member_id: present(m, str()),
    name: present(m, str()),
    name_en: present(m, str()),
  });
  const BankList = obj(m, { items: arrayOf(SBPBank) });

  // Extra keys are allowed in both modes (z.object ignores them); typed as zod's loose object, index signature
  // included, which is what the check amounts to.
  type Loose<S extends z.core.$ZodLooseShape> = ReturnType<typeof z.looseObject<S>>;
  const ErrorBody = z.object({ error: z.object({ code: str(), message: str() }) }) as unknown as Loose<{
    error: Loose<{ code: ReturnType<typeof str>; message: ReturnType<typeof str> }>;
  }>;

  return {
    Refund,
    Payment,
    WebhookPayment,
    CreatePaymentResponse,
    CancelPaymentResponse,
    Payout,
    CreatePayoutResponse,
    SBPBank,
    BankList,
    ErrorBody,
  };
}

/** Response schemas: `responseSchemas()` tolerant (the SDK default), `responseSchemas(true)` strict. */
export const responseSchemas = perMode(build);

type R = ReturnType<typeof build>;
/** A payment (spec 2.1). */
export type Payment = z.output<R['Payment']>;
/** A refund of a payment (spec 2.4). */
export type Refund = z.output<R['Refund']>;
/** A payment as carried in a webhook's `data`: the payment fields plus `shop_id`. */
export type WebhookPayment = z.output<R['WebhookPayment']>;
/** Answer of payment creation (spec 2.3). */
export type CreatePaymentResponse = z.output<R['CreatePaymentResponse']>;
/** Answer of `payments.cancel` (spec 4.3). */
export type CancelPaymentResponse = z.output<R['CancelPaymentResponse']>;
/** An SBP payout (spec 2.7). */
export type Payout = z.output<R['Payout']>;
/** Answer of payout creation (spec 2.6). */
export type CreatePayoutResponse = z.output<R['CreatePayoutResponse']>;
/** A participant of the SBP bank directory (spec 2.8). */
export type SBPBank = z.output<R['SBPBank']>;
/** Answer of `banks.list` (spec 4.7). */
export type BankList = z.output<R['BankList']>;
/** The error body of every failed request (spec 2.9). */
export type ErrorBody = z.output<R['ErrorBody']>;

export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];
export type RefundStatus = (typeof REFUND_STATUSES)[number];
