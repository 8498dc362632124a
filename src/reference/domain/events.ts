import type { Payment, Payout, Refund } from '../../schemas/resources.js';

/**
 * What happened in the domain, as the webhook dispatcher and the SSE hub consume it. Each event carries wire
 * snapshots (the object exactly as GET returns it at that moment), so consumers never touch domain internals.
 */
interface Base {
  /** Service-clock time of the event, epoch ms. */
  at: number;
  merchantId: string;
  shopId: string;
  /** Mode of the object (that of the key that created it); streams of a key see only their own mode. */
  mode?: 'test' | 'live' | undefined;
}

export type DomainEvent =
  | (Base & { type: 'payment.created'; payment: Payment; webhookUrl: string | null })
  | (Base & {
      type: 'payment.status_changed';
      payment: Payment;
      from: string;
      to: string;
      webhookUrl: string | null;
    })
  | (Base & { type: 'refund.created'; refund: Refund; payment: Payment; webhookUrl: string | null })
  | (Base & { type: 'payout.created'; payout: Payout })
  | (Base & { type: 'payout.status_changed'; payout: Payout; from: string; to: string });

export type DomainEventListener = (event: DomainEvent) => void;

/** Whose event it is: the merchant, shop and mode of the record it is about. */
export function origin(r: Pick<Base, 'merchantId' | 'shopId'> & { mode: 'test' | 'live' }): Omit<Base, 'at'> {
  return { merchantId: r.merchantId, mode: r.mode, shopId: r.shopId };
}

/**
 * A synchronous fan-out. Listeners must return fast and never throw into the request that caused the event:
 * slow work (webhook delivery) is queued by the listener itself.
 */
export class EventBus {
  readonly #listeners = new Set<DomainEventListener>();

  subscribe(listener: DomainEventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  publish(event: DomainEvent): void {
    for (const l of this.#listeners) {
      try {
        l(event);
      } catch {
        // A consumer's bug must not fail the API request that caused the event.
      }
    }
  }
}
