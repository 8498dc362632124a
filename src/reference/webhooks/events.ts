import type { WebhookEventName } from '../../schemas/names.js';
import type { DomainEvent } from '../domain/events.js';
import { iso } from '../domain/ids.js';

/**
 * One webhook event, made once per domain event and shared by every endpoint and attempt: the body is serialised
 * here, once, and the same bytes are signed and sent each time (the `evt_` id is part of them, so it stays stable
 * across retries and resends).
 */
export interface OutgoingWebhook {
  readonly id: string;
  readonly event: WebhookEventName;
  readonly shopId: string;
  /** The payment's `webhook_url`, which replaces the shop's endpoints as the target. */
  readonly webhookUrl: string | null;
  /** The raw JSON body as UTF-8, encoded once: signed and sent as these exact bytes. */
  readonly body: Uint8Array;
}

const encoder = new TextEncoder();

const PAYMENT_EVENTS: Partial<Record<string, WebhookEventName>> = {
  succeeded: 'payment.succeeded',
  failed: 'payment.failed',
  cancelled: 'payment.cancelled',
  expired: 'payment.expired',
};

const PAYOUT_EVENTS: Partial<Record<string, WebhookEventName>> = {
  succeeded: 'payout.succeeded',
  failed: 'payout.failed',
};

/** `evt_` plus a UUIDv4 without dashes: 122 random bits, opaque to receivers. */
function newEventId(): string {
  return `evt_${crypto.randomUUID().replaceAll('-', '')}`;
}

function make(
  name: WebhookEventName,
  source: DomainEvent,
  data: object,
  webhookUrl: string | null,
): OutgoingWebhook {
  const id = newEventId();
  const json = JSON.stringify({ id, event: name, created_at: iso(source.at), data });
  return { id, event: name, shopId: source.shopId, webhookUrl, body: encoder.encode(json) };
}

/**
 * The webhook event a domain event causes (spec 6.1), or undefined. Status changes into `processing` or `refunded`,
 * and every `created` event, have no webhook; `payment.refunded` comes from `refund.created`, once per refund, with
 * the payment as it is after the refund.
 */
export function toOutgoingWebhook(e: DomainEvent): OutgoingWebhook | undefined {
  switch (e.type) {
    case 'payment.status_changed': {
      const name = PAYMENT_EVENTS[e.to];
      return name && make(name, e, { ...e.payment, shop_id: e.shopId }, e.webhookUrl);
    }
    case 'refund.created':
      return make('payment.refunded', e, { ...e.payment, shop_id: e.shopId }, e.webhookUrl);
    case 'payout.status_changed': {
      const name = PAYOUT_EVENTS[e.to];
      return name && make(name, e, e.payout, null);
    }
    default:
      return undefined;
  }
}
