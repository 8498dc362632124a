/**
 * What a reference handle carries beyond its startup facts, the same from `createReference()` and
 * `startReference()`: the contract's control surface, every method async, and the buyer's two buttons.
 */
import type { Payment } from '../schemas/resources.js';
import type { CabinetApi, SimulatorApi, WebhookChaosApi } from './control.js';
import type { Domain } from './domain/core.js';
import type { FaultsApi } from './faults/index.js';
import type { StateApi } from './state/index.js';
import { paymentToWire } from './domain/serialize.js';
import { buyerPort } from './http/buyer-port.js';

/** `T`'s methods, each returning a Promise of what it returned. */
export type Async<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;
};

/**
 * The reference's control surface as typed methods, one per `/_cabinet` and `/_simulator` route of the contract
 * (faults, snapshot and restore included, plus `advanceClock`), all asynchronous: the same rule whether the reference runs in this process or behind
 * HTTP, and the one `advanceClock` (which runs due timers) needs. A refused operation rejects with the same
 * `DomainError` (status and code of the contract) that the HTTP route answers with.
 *
 * @example
 * ```ts
 * const { secret } = await ref.control.createWebhookEndpoint(ref.shop_id, { url: 'https://shop.example/hooks' });
 * await ref.control.succeedPayment(paymentId); // the bank confirms
 * await ref.control.advanceClock(30); // manual clock: due timers fire
 * ```
 */
export type ControlApi = Async<CabinetApi> & Async<SimulatorApi & FaultsApi & StateApi & WebhookChaosApi>;

/** What every reference handle offers beyond its facts, `fetch`, `clock`, `stats` and `close`. */
export interface ReferenceControl {
  /** The contract's control surface, every method async. See {@link ControlApi}. */
  readonly control: ControlApi;
  /**
   * Plays the buyer pressing Pay on the payment's page: the payment goes to its planned outcome (test mode) or is
   * paid (live), exactly as the page's button does, with the same webhooks and events. No browser, no redirect.
   * Resolves with the payment as `payments.get` answers it; rejects with `DomainError` 404 `not_found`
   * for an unknown id and 409 `not_pending` when the payment is no longer pending (and changes nothing then).
   *
   * @example
   * ```ts
   * const { payment } = await client.payments.create({ amount: 150_000, order_id: 'A-1' });
   * (await ref.pay(payment.id)).status; // 'succeeded' (the planned outcome of this amount)
   * ```
   */
  pay(paymentId: string): Promise<Payment>;
  /**
   * Plays the buyer pressing Decline: the payment fails with `declined_by_buyer`. Same answers and refusals as
   * {@link ReferenceControl.pay}.
   *
   * @example (await ref.decline(payment.id)).status // 'failed'
   */
  decline(paymentId: string): Promise<Payment>;
}

/** `control`, `pay` and `decline` for a reference over `domain`; the buttons go through the page's own port. */
export function referenceControl(
  domain: Domain,
  cabinet: CabinetApi,
  simulator: SimulatorApi & FaultsApi & StateApi & WebhookChaosApi,
): ReferenceControl {
  const buyer = buyerPort(domain);
  const act = async (paymentId: string, action: 'pay' | 'decline') => {
    buyer.act(paymentId, action);
    return paymentToWire(domain.payments.get(paymentId.toLowerCase()));
  };
  const methods = Object.entries({ ...cabinet, ...simulator }) as Array<
    [string, (...args: unknown[]) => unknown]
  >;
  const control = Object.fromEntries(
    methods.map(([name, method]) => [name, async (...args: unknown[]) => method(...args)]),
  );
  return {
    control: Object.freeze(control) as ControlApi,
    pay: (paymentId) => act(paymentId, 'pay'),
    decline: (paymentId) => act(paymentId, 'decline'),
  };
}
