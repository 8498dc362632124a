import { computeSignatureHeader } from '../../webhooks/sign.js';
import type { SignatureVersion } from './endpoints.js';
import type { WebhookEvent } from './events.js';

/**
 * The headers of one delivery attempt (spec 6.1). `t` is whole seconds on the service clock at this attempt, so a
 * retry is signed afresh and passes a receiver's freshness check.
 *
 * The signature comes from the SDK's own `computeSignatureHeader` (psp-sdk/webhooks), so the sender and
 * `verifyWebhook` cannot drift apart: v2 `t=<t>,v1=<hex>,v2=<hex>`, both HMAC over `"<t>.<body>"`; v1 endpoints
 * `sha256=<HMAC(body)>`. The key is the `whs_` string exactly as shown, prefix included. X-PSP-Timestamp is sent in
 * both versions.
 *
 * @example
 * ```ts
 * signedHeaders(event, endpoint.secret, 'v2', clock.now()); // { 'x-psp-signature': 't=..,v1=..,v2=..', ... }
 * ```
 */
export function signedHeaders(
  event: WebhookEvent,
  secret: string,
  version: SignatureVersion,
  nowMs: number,
): Record<string, string> {
  const timestamp = Math.floor(nowMs / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': 'psp-webhook/1.0',
    'x-psp-event-id': event.id,
    'x-psp-signature': computeSignatureHeader({ secret, body: event.body, version, timestamp }),
    'x-psp-timestamp': String(timestamp),
  };
}
