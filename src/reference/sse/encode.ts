import type { SseEvent } from '../../schemas/events.js';
import type { DomainEvent } from '../domain/events.js';

const encoder = new TextEncoder();

/** The stream's first bytes (spec 4.8). */
export const CONNECTED = encoder.encode(': connected\n\n');
/** The heartbeat comment (spec 4.8), every 25 s. */
export const PING = encoder.encode(': ping\n\n');
/** Written on a stream that a newer one with the same key replaces, just before it closes. */
export const REPLACED = encoder.encode(': replaced\n\n');

/**
 * The SSE envelope of a domain event (spec 2.11, 6.2). Payload shapes the spec leaves open are ours
 * (docs/spec-decisions.md): status changes carry `previous_status`; payouts and refunds carry their amounts.
 *
 * @example
 * ```ts
 * toSseEvent(statusChanged); // { kind: 'payment.status_changed', payload: { id, status: 'processing', previous_status: 'pending' }, at: '2026-05-06T12:00:00.000Z' }
 * ```
 */
export function toSseEvent(e: DomainEvent): SseEvent {
  const at = new Date(e.at).toISOString();
  switch (e.type) {
    case 'payment.created': {
      const { id, status, amount, currency, order_id } = e.payment;
      return { kind: e.type, payload: { id, status, amount, currency, order_id }, at };
    }
    case 'payment.status_changed':
      return { kind: e.type, payload: { id: e.payment.id, status: e.to, previous_status: e.from }, at };
    case 'payout.created': {
      const { id, status, amount, currency } = e.payout;
      return { kind: e.type, payload: { id, status, amount, currency }, at };
    }
    case 'payout.status_changed':
      return { kind: e.type, payload: { id: e.payout.id, status: e.to, previous_status: e.from }, at };
    case 'refund.created': {
      const { id, payment_id, status, amount } = e.refund;
      return { kind: e.type, payload: { id, payment_id, status, amount }, at };
    }
  }
}

/**
 * One message, framed and encoded once; every stream of the merchant gets the same bytes.
 *
 * @example
 * ```ts
 * new TextDecoder().decode(encodeMessage(toSseEvent(event))); // 'event: payment.created\ndata: {"kind":...}\n\n'
 * ```
 */
export function encodeMessage(message: SseEvent): Uint8Array {
  // JSON.stringify never emits a raw newline, so the data fits on one `data:` line.
  return encoder.encode(`event: ${message.kind}\ndata: ${JSON.stringify(message)}\n\n`);
}
