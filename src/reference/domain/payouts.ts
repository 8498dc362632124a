import { CODE } from '../../schemas/errors.js';
import { routeOf } from '../../schemas/operations.js';
import { type CreatePayoutInput, inputSchemas } from '../../schemas/inputs.js';
import type { CreatePayoutResponse, Payout, PayoutStatus } from '../../schemas/resources.js';
import { findBank } from './bank-directory.js';
import { DEFAULTS, PAYOUT_CURRENCIES } from './defaults.js';
import { refuse } from './errors.js';
import { origin } from './events.js';
import { newId } from './ids.js';
import { PAYOUT_DECLINE, PAYOUT_REFUSAL, planPayoutOutcome } from './outcomes.js';
import { PayoutRecord } from './records.js';
import { payoutToWire } from './serialize.js';
import { type Created, owned, RecordStore, type StoreDeps } from './store.js';
import { type Caller, parseBody } from './validate.js';

/**
 * The SBP payouts, a {@link RecordStore} (spec 2.5-2.7, 3.3, 4.5-4.6): created `pending`, then `succeeded` or
 * `failed` after the payout delay on the service clock (or at once through the simulator). A synchronous refusal
 * is `failed` in the 201 answer.
 */
export class PayoutStore extends RecordStore<PayoutRecord> {
  constructor(deps: StoreDeps) {
    super(deps, 'payout');
  }

  /** `payouts.create`: 400 for a bad body, 422 for a route the merchant cannot use. */
  create(caller: Caller, raw: unknown, idempotencyKey: string | undefined): Created<CreatePayoutResponse> {
    const input = parseBody(inputSchemas(true).CreatePayoutInput, raw);
    return this.createOnce(
      caller,
      { route: routeOf('payouts.create'), key: idempotencyKey, body: input },
      (p, replay) => this.#answer(p, replay),
      () => this.#make(caller, input),
    );
  }

  /** Checks the route, stores the payout, publishes it and plans its outcome. */
  #make(caller: Caller, input: CreatePayoutInput): PayoutRecord {
    const mode = caller.key.mode;
    const currency = input.currency ?? 'RUB';
    if (!caller.merchant.payoutsEnabled) {
      throw refuse(CODE.route_not_configured, 'SBP payouts are not enabled for this merchant.');
    }
    if (!(PAYOUT_CURRENCIES as readonly string[]).includes(currency)) {
      throw refuse(CODE.route_not_configured, `No payout route for ${currency}: SBP pays out RUB only.`);
    }
    if (!findBank(input.bank_id)) {
      throw refuse(
        CODE.bank_not_supported,
        `bank_id is not a participant of the SBP directory (${routeOf('banks.list')}).`,
      );
    }
    const now = this.d.clock.now();
    const id = newId();
    const live =
      mode === 'live'
        ? this.d.bank.registerPayout({ id, amount: input.amount, phone: input.phone, bankId: input.bank_id })
        : undefined;
    const p = new PayoutRecord({
      id,
      terminal: caller.terminal,
      mode,
      amount: input.amount,
      currency,
      method: input.method ?? 'payouts_sbp',
      phone: input.phone,
      bankId: input.bank_id,
      fullName: input.full_name ?? null,
      createdAt: now,
      outcome: live ? live.outcome : planPayoutOutcome(input.amount),
      bank: live ? live.bank : null,
      bankRef: live ? live.bankRef : null,
    });
    this.records.set(id, p);
    this.d.bus.publish({
      type: 'payout.created',
      at: now,
      ...origin(p),
      payout: payoutToWire(p),
    });
    if (p.outcome === 'refused') {
      this.move(p, 'failed', live?.refusal?.code ?? PAYOUT_REFUSAL.code);
    } else this.rearm(p);
    return p;
  }

  /** Plans a pending payout's outcome `payoutDelayMs` after its creation (at creation, and after a restore). */
  rearm(p: PayoutRecord): void {
    const to = p.outcome;
    if (p.status !== 'pending' || to === 'pending' || to === 'refused') return;
    this.d.scheduler.at(p.createdAt + DEFAULTS.payoutDelayMs, () => {
      if (p.status === 'pending') this.move(p, to, to === 'failed' ? PAYOUT_DECLINE : undefined);
    });
  }

  #answer(p: PayoutRecord, replay: boolean): CreatePayoutResponse {
    const body: CreatePayoutResponse = { payout: payoutToWire(p), mode: p.mode };
    if (replay) body.idempotent = true;
    if (p.mode === 'test') body.simulator = p.outcome;
    else {
      if (p.bank) body.bank = p.bank;
      if (p.bankRef) body.bank_ref = p.bankRef;
    }
    if (p.outcome === 'refused' && p.failReason) body.failure_reason = p.failReason;
    return body;
  }

  /** `payouts.get`: same merchant and mode only, else 404. */
  read(caller: Caller, id: string): Payout {
    return payoutToWire(owned(caller, this.records.get(id), 'payout'));
  }

  /** pending -> succeeded | failed; any other move is a 409 `invalid_transition`. */
  move(p: PayoutRecord, to: PayoutStatus, failReason?: string): PayoutRecord {
    const from = p.status;
    if (from !== 'pending' || to === 'pending') {
      throw refuse(CODE.invalid_transition, `The payout is ${from} and cannot become ${to}.`);
    }
    const now = this.d.clock.now();
    p.status = to;
    p.completedAt = now;
    if (to === 'failed') p.failReason = failReason ?? PAYOUT_DECLINE;
    this.d.bus.publish({
      type: 'payout.status_changed',
      at: now,
      ...origin(p),
      payout: payoutToWire(p),
      from,
      to,
    });
    return p;
  }
}
