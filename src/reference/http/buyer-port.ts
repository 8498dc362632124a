import type { Domain } from '../domain/core.js';
import type { PayPagePort } from './pay-page.js';

/**
 * The buyer's side of a payment, for the page at `payment_url`: a read of the payment and the buyer's two
 * actions. `pay` takes the payment to its planned outcome; `decline` fails it.
 *
 * @example app.route('/pay', payPageRoutes(buyerPort(domain)))
 */
export function buyerPort(domain: Domain): PayPagePort {
  return {
    view(paymentId) {
      const p = domain.payments.find(paymentId.toLowerCase());
      if (!p) return undefined;
      return {
        id: p.id,
        amount: p.amount,
        currency: p.currency,
        order_id: p.orderId,
        description: p.description,
        status: p.status,
        return_url: p.returnUrl,
        simulator: p.mode === 'test' ? p.outcome : null,
        // Who the buyer is paying: the shop the payment's terminal belongs to.
        shop: domain.accounts.shops.get(p.shopId)?.name ?? null,
      };
    },
    act(paymentId, action) {
      const p = domain.payments.buyerAct(paymentId.toLowerCase(), action);
      return { status: p.status, return_url: p.returnUrl };
    },
  };
}
