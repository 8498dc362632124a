import { computeSignatureHeader } from '../../webhooks/sign.js';
import type { SignatureVersion } from './endpoints.js';
import type { WebhookEvent } from './events.js';
import type { SignRequest } from './transport.js';

/**
 * The headers of one delivery attempt (spec 6.1). `t` is whole seconds on the service clock at this attempt, so a
 * retry is signed afresh and passes a receiver's freshness check.
 *
 * The signature comes from the SDK's own `computeSignatureHeader` (psp-sdk/webhooks), so the sender and
 * `verifyWebhook` cannot drift apart: v2 `t=<t>,v1=<HMAC(body)>,v2=<HMAC("<t>.<body>")>`, where the `v1=` part lets
 * a receiver still on the legacy check pass; v1 endpoints `sha256=<HMAC(body)>`. The key is the `whs_` string
 * exactly as shown, prefix included. X-PSP-Timestamp is sent in both versions.
 */
export function signedHeaders(
  event: WebhookEvent,
  secret: string,
  version: SignatureVersion,
  nowMs: number,
): Record<string, string> {
  return signRequestHeaders(signRequest(event, secret, version, nowMs), event.body);
}

/**
 * The signing of one attempt, for a transport that signs itself (see `Transport.sendSigned`).
 *
 * @example
 * ```ts
 * signRequest(event, endpoint.secret, 'v2', clock.now()); // { eventId, secret, version: 'v2', timestamp }
 * ```
 */
export function signRequest(
  event: WebhookEvent,
  secret: string,
  version: SignatureVersion,
  nowMs: number,
): SignRequest {
  return { eventId: event.id, secret, version, timestamp: Math.floor(nowMs / 1000) };
}

/**
 * The headers a {@link SignRequest} stands for, over `body`: what {@link signedHeaders} answers, in the same order.
 *
 * @example
 * ```ts
 * signRequestHeaders({ eventId: 'evt_1', secret, version: 'v1', timestamp: 1_700_000_000 }, body);
 * ```
 */
export function signRequestHeaders(sign: SignRequest, body: Uint8Array): Record<string, string> {
  const { secret, version, timestamp } = sign;
  return {
    'content-type': 'application/json',
    'user-agent': 'psp-webhook/1.0',
    'x-psp-event-id': sign.eventId,
    'x-psp-signature': computeSignatureHeader({ secret, body, version, timestamp }),
    'x-psp-timestamp': String(timestamp),
  };
}
