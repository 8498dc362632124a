import { computeSignatureHeader } from '../../internal/webhook-signature.js';
import type { SignatureVersion } from '../../schemas/names.js';
import type { OutgoingWebhook } from './events.js';

/**
 * The headers of one delivery attempt (spec 6.1). `t` is whole seconds on the service clock at this attempt, so a
 * retry is signed afresh and passes a receiver's freshness check. The signature comes from the SDK's own
 * `computeSignatureHeader`, so the sender and `verifyWebhook` cannot drift apart. X-PSP-Timestamp is sent in both
 * versions.
 */
export function signedHeaders(
  event: OutgoingWebhook,
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
