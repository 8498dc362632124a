import type * as z from 'zod/mini';
import { isHttpUrl } from '../../schemas/common.js';
import { inputSchemas } from '../../schemas/inputs.js';
import { CURRENCY_RE, LIMITS, PAYMENT_METHODS } from '../../schemas/limits.js';
import { parseBody } from './validate.js';

/** A `POST /payments` body as the reference's strict schema outputs it. */
export type CreatePaymentFields = z.output<ReturnType<typeof inputSchemas>['CreatePaymentInput']>;

// The schema's keys in its order: zod's object output lists the keys it was given in this order.
const KEYS = [
  'amount',
  'currency',
  'method',
  'order_id',
  'customer_id',
  'return_url',
  'description',
  'webhook_url',
  'metadata',
] as const;
const KNOWN: ReadonlySet<string> = new Set(KEYS);
const METHODS: readonly string[] = PAYMENT_METHODS;

const optionalText = (v: unknown, max: number) =>
  v === undefined || (typeof v === 'string' && v.length <= max);
const optionalUrl = (v: unknown) =>
  v === undefined || (typeof v === 'string' && v.length <= LIMITS.urlMax && isHttpUrl(v));

function okMetadata(v: unknown): boolean {
  if (v === undefined) return true;
  if (typeof v !== 'object' || v === null) return false;
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return false;
  // A "__proto__" key is refused by parseBody with its own message: leave it to the full path.
  if (Object.hasOwn(v, '__proto__')) return false;
  const map = v as Record<string, unknown>;
  let count = 0;
  for (const key of Object.keys(map)) {
    const value = map[key];
    if (typeof value !== 'string') return false;
    if (key.length > LIMITS.metadataKeyMax || value.length > LIMITS.metadataValueMax) return false;
    count++;
  }
  return count <= LIMITS.metadataMaxKeys;
}

/**
 * The strict `CreatePaymentInput` rule as plain checks: the body zod would output when it accepts it, or
 * `undefined` for anything it might refuse (then zod decides and words the issues). zod/mini's object parse was
 * the largest part of a create's validation; a property test holds this to zod's verdict and output.
 */
export function quickCreatePaymentInput(raw: unknown): CreatePaymentFields | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const body = raw as Record<string, unknown>;
  // `for...in`, as zod's strict object looks for unknown keys.
  for (const key in body) if (!KNOWN.has(key)) return undefined;
  const amount = body.amount;
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount < 1) return undefined;
  const { currency, method } = body;
  if (currency !== undefined && (typeof currency !== 'string' || !CURRENCY_RE.test(currency)))
    return undefined;
  if (method !== undefined && (typeof method !== 'string' || !METHODS.includes(method))) return undefined;
  if (
    !optionalText(body.order_id, LIMITS.orderIdMax) ||
    !optionalText(body.customer_id, LIMITS.customerIdMax) ||
    !optionalText(body.description, LIMITS.descriptionMax) ||
    !optionalUrl(body.return_url) ||
    !optionalUrl(body.webhook_url) ||
    !okMetadata(body.metadata)
  ) {
    return undefined;
  }
  const out: Record<string, unknown> = {};
  for (const key of KEYS) if (key in body) out[key] = body[key];
  return out as CreatePaymentFields;
}

/** Validates a `POST /payments` body: the quick check first, zod's full parse (and its 400) otherwise. */
export function parseCreatePaymentInput(raw: unknown): CreatePaymentFields {
  return quickCreatePaymentInput(raw) ?? parseBody(inputSchemas(true).CreatePaymentInput, raw);
}
