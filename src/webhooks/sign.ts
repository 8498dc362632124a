import type { SignatureVersion } from '../schemas/names.js';
import { webhookHeaders } from '../internal/webhook-signature.js';

export { computeSignatureHeader, type SignatureHeaderInput } from '../internal/webhook-signature.js';

/** Options of {@link signWebhook}. */
export interface SignWebhookOptions {
  /** Time to sign: a `Date`, or Unix seconds (what `t=` carries). Default: now. */
  timestamp?: Date | number | undefined;
  /** Default `v2`. */
  version?: SignatureVersion | undefined;
}

/** A webhook request ready to send: the exact body and the headers the service would attach (lowercase names). */
export interface SignedWebhook {
  body: string;
  headers: Record<string, string>;
}

/**
 * Signs a webhook the way the Payment Service does, for merchants' tests of their receivers: the same headers the
 * service sends (`X-PSP-Timestamp` in both versions). An object payload is serialised with `JSON.stringify` and its
 * `id` becomes `X-PSP-Event-Id`; a string is sent as is.
 *
 * @example
 * const { body, headers } = signWebhook(
 *   { id: 'evt_1', event: 'payment.succeeded', created_at: new Date().toISOString(), data: payment },
 *   'whs_test_secret',
 * );
 * const res = await app.request('/webhooks', { method: 'POST', body, headers });
 */
export function signWebhook(
  payload: string | object,
  secret: string,
  options: SignWebhookOptions = {},
): SignedWebhook {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  if (typeof body !== 'string') throw new TypeError('payload must be a string or JSON-serialisable.');
  const { version = 'v2', timestamp: at = new Date() } = options;
  const timestamp = at instanceof Date ? Math.floor(at.getTime() / 1000) : at;
  const id = (payload as { id?: unknown }).id;
  const eventId = typeof id === 'string' ? id : undefined;
  return { body, headers: webhookHeaders({ secret, body, version, timestamp, eventId }) };
}
