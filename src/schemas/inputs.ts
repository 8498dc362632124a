import * as z from 'zod/mini';
import {
  atLeast,
  isAbsoluteUri,
  isWebhookUrl,
  matches,
  maxChars,
  minorUnits,
  oneOf,
  perMode,
  type SchemaMode,
  str,
  stringMap,
} from './common.js';
import {
  BANK_ID_RE,
  CURRENCY_RE,
  IDEMPOTENCY_KEY_RE,
  IDEMPOTENCY_KEY_RULE,
  LIMITS,
  PAYMENT_CURRENCIES,
  PAYMENT_METHODS,
  PAYOUT_METHODS,
  PHONE_RE,
  WEBHOOK_URL_RULE,
} from './limits.js';

const WHOLE = 'must be a whole number of minor units (a safe integer)';
const amount = () => minorUnits(WHOLE).check(atLeast(1, 'must be at least 1'));

/**
 * A refund's amount: an integer of any size. The reference also takes Infinity, which is what JSON.parse makes of
 * an integer literal over about 1e308; the SDK does not (JSON.stringify would send it as `null`).
 */
const refundAmount = (m: SchemaMode) =>
  z
    .custom<number>((v) => typeof v === 'number' && !Number.isNaN(v), 'must be a number')
    .check(
      z.refine(
        (v) => Number.isInteger(v) || (m.strict && v === Number.POSITIVE_INFINITY),
        'must be a whole number of minor units',
      ),
    );

const text = (max: number) => str().check(maxChars(max));

/** A URL field: a string that `ok` accepts, of at most `LIMITS.urlMax` characters. */
const url = (ok: (v: string) => boolean, message: string) =>
  str(message).check(z.refine(ok, message), maxChars(LIMITS.urlMax));

const currency = () => str().check(matches(CURRENCY_RE, 'must be a 3-letter uppercase ISO 4217 code'));
/**
 * A payment's currency: one of {@link PAYMENT_CURRENCIES} for the reference (and the document's enum); the SDK asks
 * only the form, so a currency the service adds later can be sent by an old client.
 */
const paymentCurrency = (m: SchemaMode) => (m.strict ? oneOf(PAYMENT_CURRENCIES) : currency());

const metadata = () =>
  stringMap({ key: LIMITS.metadataKeyMax, value: LIMITS.metadataValueMax, keys: LIMITS.metadataMaxKeys });

// Inputs: the reference parses strictly (an unknown field is a 400 naming it); the SDK parses loosely so that a
// field the server adds later can be sent by an old client.
const inputObj = <S extends z.core.$ZodLooseShape>(m: SchemaMode, shape: S) =>
  (m.strict ? z.strictObject(shape) : z.object(shape)) as ReturnType<typeof z.strictObject<S>>;

function build(m: SchemaMode) {
  const CreatePaymentInput = inputObj(m, {
    amount: amount(),
    currency: z.optional(paymentCurrency(m)),
    method: z.optional(oneOf(PAYMENT_METHODS)),
    order_id: z.optional(text(LIMITS.orderIdMax)),
    customer_id: z.optional(text(LIMITS.customerIdMax)),
    // Where the buyer's browser is sent back: any absolute URI (spec 2.2), so a mobile app's own scheme works.
    return_url: z.optional(url(isAbsoluteUri, 'must be an absolute URI')),
    description: z.optional(text(LIMITS.descriptionMax)),
    // Where the service POSTs: http(s) only, and no credentials in it, as the cabinet's endpoint URL.
    webhook_url: z.optional(url(isWebhookUrl, WEBHOOK_URL_RULE)),
    metadata: z.optional(metadata()),
  });

  const CreateRefundInput = inputObj(m, {
    // Any whole number, however large: one over the balance is the spec's 422 (4.4), never a 400. Past 2^53 - 1
    // JSON loses precision, and past about 1e308 it reads as Infinity; both are over every balance all the same.
    amount: z.optional(refundAmount(m).check(atLeast(0, 'must not be negative'))),
    reason: z.optional(text(LIMITS.reasonMax)),
  });

  const CreatePayoutInput = inputObj(m, {
    amount: amount(),
    currency: z.optional(currency()),
    method: z.optional(oneOf(PAYOUT_METHODS)),
    phone: str().check(matches(PHONE_RE, 'must be +7 followed by exactly 10 digits')),
    bank_id: str().check(matches(BANK_ID_RE, 'must be exactly 12 digits (an SBP member_id)')),
    full_name: z.optional(text(LIMITS.fullNameMax)),
  });

  return { CreatePaymentInput, CreateRefundInput, CreatePayoutInput };
}

/** Request body schemas. `inputSchemas()` is the SDK's loose variant, `inputSchemas(true)` the reference's strict one. */
export const inputSchemas = perMode(build);

/** The `Idempotency-Key` header's rule (the reference checks it; the client uses the regex alone). */
export const IdempotencyKey = /* @__PURE__ */ idempotencyKeySchema();

function idempotencyKeySchema() {
  return str().check(matches(IDEMPOTENCY_KEY_RE, IDEMPOTENCY_KEY_RULE));
}

type Inputs = ReturnType<typeof build>;
/** Body of `payments.create` (spec 2.2). */
export type CreatePaymentInput = z.input<Inputs['CreatePaymentInput']>;
/** Body of `payments.refund` (spec 4.4). */
export type CreateRefundInput = z.input<Inputs['CreateRefundInput']>;
/** Body of `payouts.create` (spec 2.5). */
export type CreatePayoutInput = z.input<Inputs['CreatePayoutInput']>;
