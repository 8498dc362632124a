import { SSE_KINDS, WEBHOOK_EVENTS } from '../schemas/names.js';
import {
  BANK_ID_RE,
  CURRENCY_RE,
  LIMITS,
  MODES,
  PAYMENT_CURRENCIES,
  PAYMENT_METHODS,
  PAYMENT_STATUSES,
  PAYOUT_METHODS,
  PAYOUT_STATUSES,
  PHONE_RE,
  REFUND_STATUSES,
  WEBHOOK_URL_PATTERN,
} from '../schemas/limits.js';

/** A JSON Schema fragment (2020-12, as OpenAPI 3.1 uses it). */
export type JsonSchema = { [key: string]: unknown };

/**
 * The rules of the wire's leaf values, per component and field path (`recipient.phone`), that zod cannot state in
 * JSON Schema: the schemas of src/schemas build their leaves as custom zod types and refinements (for the client
 * bundle's size), whose rules live in closures. zod gives the document everything else: the components, their
 * fields, which are required, nullable or optional, and that no other field is allowed; the leaf's JSON type is
 * read from the zod schema too (see `probeType` in document.ts). The values below come from the same constants the
 * schemas check with (src/schemas/limits.ts), and document.ts refuses an entry that names no field, or a leaf
 * whose JSON type contradicts its zod schema, so this table cannot silently drift from the schemas.
 */
const uuid: JsonSchema = { type: 'string', format: 'uuid' };
const timestamp: JsonSchema = { type: 'string', format: 'date-time' };
// Safe integers only: beyond 2^53 - 1 a JSON number loses precision, so the schemas refuse it (spec-decisions.md,
// "Amounts").
const minorUnits: JsonSchema = { type: 'integer', format: 'int64', maximum: Number.MAX_SAFE_INTEGER };
// JSON Schema's maxLength counts code points, as the schemas' maxChars does.
const text = (max: number): JsonSchema => ({ type: 'string', maxLength: max });
const pattern = (re: RegExp): JsonSchema => ({ type: 'string', pattern: re.source });
const oneOf = (values: readonly string[]): JsonSchema => ({ type: 'string', enum: [...values] });
// Where the service POSTs: the pattern is the service's whole rule (isWebhookUrl asks it alone). Not `format: uri`,
// which JSON Schema leaves to each tool (many do not check it) and which would admit other schemes.
const webhookUrl: JsonSchema = {
  type: 'string',
  pattern: WEBHOOK_URL_PATTERN,
  maxLength: LIMITS.urlMax,
  description:
    'An absolute http(s) URI (RFC 3986: ASCII only, so an international host name comes in its punycode `xn--` form) without a user name or password: a host name, a dotted IPv4 address or a bracketed IPv6 one, an optional port, then a path, query and fragment of URI characters (`%` only before two hex digits).',
};
// Where the buyer's browser goes back: any absolute URI (an app's own scheme too) but a script scheme.
const returnUrl: JsonSchema = {
  type: 'string',
  format: 'uri',
  not: {
    pattern:
      '^(?:[Jj][Aa][Vv][Aa][Ss][Cc][Rr][Ii][Pp][Tt]|[Vv][Bb][Ss][Cc][Rr][Ii][Pp][Tt]|[Dd][Aa][Tt][Aa]):',
  },
  maxLength: LIMITS.urlMax,
};
const metadata = (input: boolean): JsonSchema => ({
  type: 'object',
  additionalProperties: input ? text(LIMITS.metadataValueMax) : { type: 'string' },
  ...(input
    ? { maxProperties: LIMITS.metadataMaxKeys, propertyNames: { maxLength: LIMITS.metadataKeyMax } }
    : {}),
});
const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

const paymentFields: Record<string, JsonSchema> = {
  id: uuid,
  merchant_id: uuid,
  terminal_id: uuid,
  amount: minorUnits,
  amount_refunded: minorUnits,
  amount_usdt: { type: 'number', format: 'double' },
  method: oneOf(PAYMENT_METHODS),
  status: oneOf(PAYMENT_STATUSES),
  created_at: timestamp,
  captured_at: timestamp,
  finalized_at: timestamp,
  expires_at: timestamp,
  processing_until: timestamp,
  metadata: metadata(false),
  refunds: { type: 'array', items: ref('Refund') },
};

export const LEAVES: Record<string, Record<string, JsonSchema>> = {
  Refund: {
    id: uuid,
    payment_id: uuid,
    merchant_id: uuid,
    amount: minorUnits,
    status: oneOf(REFUND_STATUSES),
    created_at: timestamp,
    completed_at: timestamp,
  },
  Payment: paymentFields,
  WebhookPayment: { ...paymentFields, shop_id: uuid },
  CreatePaymentResponse: { payment_url: { type: 'string', format: 'uri' }, mode: oneOf(MODES) },
  CancelPaymentResponse: { status: oneOf(['cancelled']) },
  Payout: {
    id: uuid,
    merchant_id: uuid,
    terminal_id: uuid,
    amount: minorUnits,
    status: oneOf(PAYOUT_STATUSES),
    created_at: timestamp,
    completed_at: timestamp,
  },
  CreatePayoutResponse: { mode: oneOf(MODES) },
  SBPBank: { member_id: pattern(BANK_ID_RE) },
  BankList: { items: { type: 'array', items: ref('SBPBank') } },
  Error: {},
  PaymentWebhook: {
    event: oneOf(WEBHOOK_EVENTS.filter((e) => e.startsWith('payment.'))),
    created_at: timestamp,
  },
  PayoutWebhook: {
    event: oneOf(WEBHOOK_EVENTS.filter((e) => e.startsWith('payout.'))),
    created_at: timestamp,
  },
  SseEvent: { kind: oneOf(SSE_KINDS), at: timestamp },
  CreatePaymentInput: {
    amount: { ...minorUnits, minimum: 1 },
    currency: { ...oneOf(PAYMENT_CURRENCIES), default: 'RUB' },
    method: { ...oneOf(PAYMENT_METHODS), default: 'any' },
    order_id: text(LIMITS.orderIdMax),
    customer_id: text(LIMITS.customerIdMax),
    return_url: returnUrl,
    description: text(LIMITS.descriptionMax),
    webhook_url: webhookUrl,
    metadata: metadata(true),
  },
  CreateRefundInput: {
    // No `maximum`: an amount larger than the balance, however large, is the spec's 422 (4.4), not a malformed body.
    amount: {
      type: 'integer',
      format: 'int64',
      minimum: 0,
      description:
        '0 or absent: refund the whole remaining balance. More than what is left to refund (any larger integer included): 422 `amount_exceeds_balance`.',
    },
    reason: text(LIMITS.reasonMax),
  },
  CreatePayoutInput: {
    amount: { ...minorUnits, minimum: 1 },
    currency: { ...pattern(CURRENCY_RE), default: 'RUB' },
    method: { ...oneOf(PAYOUT_METHODS), default: 'payouts_sbp' },
    phone: pattern(PHONE_RE),
    bank_id: pattern(BANK_ID_RE),
    full_name: text(LIMITS.fullNameMax),
  },
};
