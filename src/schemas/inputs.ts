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

/**
 * An ISO 4217 code. Typed as the codes the service knows plus any string (`(string & {})` keeps the editor's
 * completion of the known ones), since only the form is checked: a currency the service adds later can be sent
 * by an old client.
 */
const currency = <Known extends string>() =>
  z
    .custom<Known | (string & {})>((v) => typeof v === 'string', 'must be a string')
    .check(matches(CURRENCY_RE, 'must be a 3-letter uppercase ISO 4217 code'));
/**
 * A payment's currency: one of {@link PAYMENT_CURRENCIES} for the reference (and the document's enum); the SDK asks
 * only the form.
 */
const paymentCurrency = (m: SchemaMode) =>
  m.strict ? oneOf(PAYMENT_CURRENCIES) : currency<(typeof PAYMENT_CURRENCIES)[number]>();

const metadata = () =>
  stringMap({ key: LIMITS.metadataKeyMax, value: LIMITS.metadataValueMax, keys: LIMITS.metadataMaxKeys });

// Inputs: the reference parses strictly (an unknown field is a 400 naming it); the SDK parses loosely so that a
// field the server adds later can be sent by an old client.
const inputObj = <S extends z.core.$ZodLooseShape>(m: SchemaMode, shape: S) =>
  (m.strict ? z.strictObject(shape) : z.object(shape)) as ReturnType<typeof z.strictObject<S>>;

function build(m: SchemaMode) {
  // The comments on the fields are the TSDoc of the inferred types (CreatePaymentInput below): editors and the API
  // reference show them on each property.
  const CreatePaymentInput = inputObj(m, {
    /** Amount in minor units of the currency (kopecks for RUB: `150_000` is 1 500.00 RUB): a whole number, at least 1. */
    amount: amount(),
    /** ISO 4217 code, uppercase: `'RUB'`, `'USD'` or `'EUR'` (any 3-letter code is sent). Default `'RUB'`. */
    currency: z.optional(paymentCurrency(m)),
    /** How the buyer pays: `'sbp'`, `'cards'`, `'tpay'`, `'sberpay'`, `'recurrent'` or `'any'`. Default `'any'` (the buyer chooses). */
    method: z.optional(oneOf(PAYMENT_METHODS)),
    /** Your own order reference, returned on the payment and its webhooks; at most 256 characters. */
    order_id: z.optional(text(LIMITS.orderIdMax)),
    /** Your own customer reference; at most 256 characters. */
    customer_id: z.optional(text(LIMITS.customerIdMax)),
    // Any absolute URI (spec 2.2), so a mobile app's own scheme works.
    /** Where the buyer's browser goes back after paying: an absolute URI (an app's own scheme too); at most 2048 characters. */
    return_url: z.optional(url(isAbsoluteUri, 'must be an absolute URI')),
    /** Shown to the buyer on the payment page; at most 1024 characters. */
    description: z.optional(text(LIMITS.descriptionMax)),
    // Where the service POSTs: http(s) only, and no credentials in it, as the cabinet's endpoint URL.
    /**
     * This payment's webhook target, instead of the endpoints set in the cabinet: an absolute http(s) URI (RFC 3986:
     * ASCII, an international host in its `xn--` form) without a user name or password; at most 2048 characters.
     */
    webhook_url: z.optional(url(isWebhookUrl, WEBHOOK_URL_RULE)),
    /** Your string-to-string pairs, returned on the payment: at most 50 keys of up to 40 characters, values up to 500. */
    metadata: z.optional(metadata()),
  });

  const CreateRefundInput = inputObj(m, {
    /** Amount to return, in minor units (kopecks), at most what is not yet refunded. Absent or 0: the whole remaining balance. */
    // Any whole number, however large: one over the balance is the spec's 422 (4.4), never a 400. Past 2^53 - 1
    // JSON loses precision, and past about 1e308 it reads as Infinity; both are over every balance all the same.
    amount: z.optional(refundAmount(m).check(atLeast(0, 'must not be negative'))),
    /** Why, returned on the refund; at most 1024 characters. */
    reason: z.optional(text(LIMITS.reasonMax)),
  });

  const CreatePayoutInput = inputObj(m, {
    /** Amount in minor units (kopecks: `50_000` is 500.00 RUB): a whole number, at least 1. */
    amount: amount(),
    /** ISO 4217 code, uppercase. Default `'RUB'`, the one currency SBP pays out. */
    currency: z.optional(currency<'RUB'>()),
    /** Default `'payouts_sbp'`, the only method. */
    method: z.optional(oneOf(PAYOUT_METHODS)),
    /** The recipient's phone number: `+7` and exactly 10 digits, e.g. `'+79001234567'`. */
    phone: str().check(matches(PHONE_RE, 'must be +7 followed by exactly 10 digits')),
    /** The recipient's bank: the 12-digit `member_id` of an SBP bank, from `client.banks.list()`. */
    bank_id: str().check(matches(BANK_ID_RE, 'must be exactly 12 digits (an SBP member_id)')),
    /** The recipient's name; at most 256 characters. */
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
