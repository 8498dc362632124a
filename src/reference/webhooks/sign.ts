import { hmacSha256Hex } from '../../webhooks/hmac.js';
import type { SignatureVersion } from './endpoints.js';
import type { WebhookEvent } from './events.js';

/**
 * The headers of one delivery attempt (spec 6.1). `t` is whole seconds on the service clock at this attempt, so a
 * retry is signed afresh and passes a receiver's freshness check.
 *
 * v2: `t=<t>,v1=<hex>,v2=<hex>` where v2 = HMAC(secret, `<t>.<body>`) and v1 = HMAC(secret, body), so a receiver
 * still on the legacy check finds a valid v1 inside a v2 header. v1 endpoints: `sha256=<HMAC(secret, body)>`.
 * The key is the `whs_` string exactly as shown, prefix included.
 */
export function signedHeaders(
  event: WebhookEvent,
  secret: string,
  version: SignatureVersion,
  nowMs: number,
): Record<string, string> {
  const t = Math.floor(nowMs / 1000);
  let mac = event.bodyMac;
  if (!mac || mac.secret !== secret) {
    mac = { secret, hex: hmacSha256Hex(secret, event.body) };
    event.bodyMac = mac;
  }
  const signature =
    version === 'v1'
      ? `sha256=${mac.hex}`
      : `t=${t},v1=${mac.hex},v2=${hmacSha256Hex(secret, `${t}.${event.body}`)}`;
  return {
    'content-type': 'application/json',
    'user-agent': 'psp-webhook/1.0',
    'x-psp-event-id': event.id,
    'x-psp-signature': signature,
    'x-psp-timestamp': String(t),
  };
}
