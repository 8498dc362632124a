import * as z from 'zod/mini';
import { isWebhookUrl } from '../../schemas/common.js';
import { SIGNATURE_VERSIONS, WEBHOOK_EVENTS } from '../../schemas/names.js';
import {
  MODES,
  PAYMENT_CURRENCIES,
  PAYMENT_METHODS,
  PAYMENT_STATUSES,
  PAYOUT_STATUSES,
  REFUND_STATUSES,
} from '../../schemas/limits.js';
import { inputSchemas } from '../../schemas/inputs.js';
import { adminTokenProblem } from '../domain/admin-token.js';
import { CABINET_RULES } from '../domain/cabinet-inputs.js';
import { CLOCK_MAX_MS, TIME_MAX_MS } from '../domain/clock.js';
import { MAX_MERCHANTS } from '../control.js';
import { PAYOUT_CURRENCIES } from '../domain/defaults.js';
import { PAYMENT_OUTCOMES, PAYOUT_OUTCOMES } from '../domain/outcomes.js';
import { ENDPOINT_URL } from '../webhooks/endpoints.js';

// The document of GET /_simulator/snapshot (reference-contract.md, "State"). Not a wire type of the public API, so
// it lives here rather than in src/schemas. Keys are snake_case like the wire; times are epoch milliseconds of the
// service clock (exact, and cheap to read back for 10,000 payments). Records are strict: a field this version does
// not know is a document of another version. A field a caller once gave (a merchant's settings, a payment's
// metadata, an endpoint's URL) is checked by the very schema of the cabinet route or public input that took it, so a
// document cannot hold what the service would have refused.

/** The `format` every snapshot carries. */
export const SNAPSHOT_FORMAT = 'psp-reference-snapshot';
/** The one version this reference reads and writes. */
export const SNAPSHOT_VERSION = 1;

const str = z.string();
// Times RFC 3339 can write (years 1970 to 9999); the clock itself stays where the manual clock may go.
const ms = z.int().check(z.minimum(0), z.maximum(TIME_MAX_MS));
const count = z.int().check(z.minimum(0));
const orNull = <T extends z.ZodMiniType>(s: T) => z.nullable(s);
// Named functions, not a destructured namespace: taking `z` apart as a value makes bundlers keep all of zod
// (its 64 locales included) in the chunk the client shares.
const obj = z.strictObject;
const array = z.array;
/** The schema inside an optional input field: a snapshot always writes the field (null where it was not given). */
const given = <T extends z.ZodMiniType>(field: { def: { innerType: T } }): T => field.def.innerType;
const settings = CABINET_RULES.updateMerchant.shape;
const inputs = inputSchemas(true);
const payIn = inputs.CreatePaymentInput.shape;
const payoutIn = inputs.CreatePayoutInput.shape;

const merchant = obj({
  id: str,
  name: given(CABINET_RULES.createMerchant.shape.name),
  live_enabled: z.boolean(),
  ip_allow_list: given(settings.ip_allow_list),
  block: given(settings.block),
  rate_limit: given(settings.rate_limit),
  payouts_enabled: z.boolean(),
  // Optional: a snapshot written before merchant admin tokens existed has none.
  admin_token_digest: z.optional(orNull(z.string().check(z.regex(/^[0-9a-f]{64}$/)))),
});
const shop = obj({ id: str, merchant_id: str, name: str });
const terminal = obj({
  id: str,
  merchant_id: str,
  shop_id: str,
  name: str,
  require_signature: z.boolean(),
  signing_secret: str,
});
const apiKey = obj({
  id: str,
  merchant_id: str,
  shop_id: str,
  terminal_id: str,
  mode: z.enum(MODES),
  prefix: str,
  created_at: ms,
  revoked_at: orNull(ms),
  /** The keyed hash the key is looked up by: the key works again, and the snapshot never holds it in clear. */
  digest: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
});
// What payments and payouts share, first in both.
const onTerminal = { id: str, terminal_id: str, mode: z.enum(MODES) };
const payment = obj({
  ...onTerminal,
  amount: payIn.amount,
  currency: z.enum(PAYMENT_CURRENCIES),
  method: z.enum(PAYMENT_METHODS),
  order_id: orNull(given(payIn.order_id)),
  customer_id: orNull(given(payIn.customer_id)),
  description: orNull(given(payIn.description)),
  return_url: orNull(given(payIn.return_url)),
  webhook_url: orNull(given(payIn.webhook_url)),
  metadata: orNull(given(payIn.metadata)),
  created_at: ms,
  expires_at: ms,
  outcome: z.enum(PAYMENT_OUTCOMES),
  bank: orNull(str),
  bank_ref: orNull(str),
  status: z.enum(PAYMENT_STATUSES),
  amount_refunded: count,
  captured_at: orNull(ms),
  finalized_at: orNull(ms),
  processing_until: orNull(ms),
  failure_code: orNull(str),
  failure_message: orNull(str),
});
const refund = obj({
  id: str,
  payment_id: str,
  merchant_id: str,
  amount: count,
  reason: orNull(given(inputs.CreateRefundInput.shape.reason)),
  created_at: ms,
  status: z.enum(REFUND_STATUSES),
  completed_at: orNull(ms),
});
const payout = obj({
  ...onTerminal,
  amount: payoutIn.amount,
  currency: z.enum(PAYOUT_CURRENCIES),
  method: given(payoutIn.method),
  phone: payoutIn.phone,
  bank_id: payoutIn.bank_id,
  full_name: orNull(given(payoutIn.full_name)),
  created_at: ms,
  outcome: z.enum(PAYOUT_OUTCOMES),
  bank: orNull(str),
  bank_ref: orNull(str),
  status: z.enum(PAYOUT_STATUSES),
  fail_reason: orNull(str),
  completed_at: orNull(ms),
});
const idempotency = obj({ merchant_id: str, key: str, object_id: str, fingerprint: str, at: ms });
const attempt = obj({
  event_id: str,
  event: str,
  attempt: count,
  status: orNull(z.int()),
  error: orNull(str),
  at: ms,
  next: orNull(ms),
});
const endpoint = obj({
  id: str,
  shop_id: str,
  url: ENDPOINT_URL,
  events: array(z.enum(WEBHOOK_EVENTS)),
  signature_version: z.enum(SIGNATURE_VERSIONS),
  secret: str,
  seq: count,
  attempts: array(attempt),
});
const webhookEvent = obj({
  id: str,
  event: z.enum(WEBHOOK_EVENTS),
  shop_id: str,
  webhook_url: orNull(z.string().check(z.refine(isWebhookUrl, 'must be an absolute http(s) URL'))),
  /** The exact JSON text that is signed and sent. */
  body: str,
  /** Kept for `POST /_cabinet/events/{id}/resend` (otherwise only a pending delivery holds it). */
  kept: z.boolean(),
});
const pending = obj({
  event_id: str,
  endpoint_id: orNull(str),
  attempt: count,
  due_at: orNull(ms),
});

/** Zod schema of a snapshot document, version 1. */
export const SnapshotSchema = obj({
  format: z.literal(SNAPSHOT_FORMAT),
  version: z.literal(SNAPSHOT_VERSION),
  clock: obj({ mode: z.enum(['real', 'manual']), now: z.int().check(z.minimum(0), z.maximum(CLOCK_MAX_MS)) }),
  admin_token: z.string().check(
    z.superRefine((token, ctx) => {
      const problem = adminTokenProblem(token);
      if (problem) ctx.issues.push({ code: 'custom', input: '', message: problem });
    }),
  ),
  /** The startup facts' merchant (the one started first), with its test key and signing secret in clear. */
  facts: obj({ merchant_id: str, shop_id: str, terminal_id: str, api_key: str, signing_secret: str }),
  merchants: array(merchant).check(z.maxLength(MAX_MERCHANTS, `at most ${MAX_MERCHANTS} merchants`)),
  shops: array(shop),
  terminals: array(terminal),
  api_keys: array(apiKey),
  payments: array(payment),
  refunds: array(refund),
  payouts: array(payout),
  idempotency: array(idempotency),
  webhook_endpoints: array(endpoint),
  webhook_events: array(webhookEvent),
  pending_deliveries: array(pending),
  /** The fault rules in force (reference-contract.md, "Faults"), as `GET /_simulator/faults` lists them. */
  fault_rules: array(z.record(str, z.unknown())),
});

/**
 * A snapshot document: the whole state of a reference, secrets included (keep it like a password file).
 *
 * @example
 * const doc: Snapshot = await ref.control.snapshot();
 * doc.payments.length; // payments held
 */
export type Snapshot = z.infer<typeof SnapshotSchema>;
