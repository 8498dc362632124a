import { Accounts, type ApiKeyRecord } from './accounts.js';
import { type BankAdapter, FakeBank } from './bank.js';
import type { Clock } from './clock.js';
import { DEFAULTS } from './defaults.js';
import { EventBus } from './events.js';
import { IdempotencyStore } from './idempotency.js';
import { PaymentStore } from './payments.js';
import { PayoutStore } from './payouts.js';
import { StorageQuota } from './quota.js';
import { RateLimiter } from './rate-limit.js';
import { RefundStore } from './refunds.js';
import { Scheduler } from './scheduler.js';
import type { Caller } from './validate.js';

/** Options of the domain core. */
export interface DomainOptions {
  clock: Clock;
  /** The bank live keys talk to; default a deterministic {@link FakeBank}. */
  bank?: BankAdapter | undefined;
  /** Where domain events go; default a new bus. */
  bus?: EventBus | undefined;
  /** Bytes one merchant may hold (see {@link DEFAULTS}). Default `DEFAULTS.maxStoredBytesPerMerchant`. */
  maxStoredBytesPerMerchant?: number | undefined;
}

/**
 * The whole Payment Service without HTTP: cabinet state, payments, refunds, payouts, idempotency, the rate
 * limiter and the deadlines, all on one service clock, publishing every change on one event bus.
 *
 * @example
 * const domain = new Domain({ clock: new ManualClock() });
 * const { apiKey } = domain.accounts.createMerchant();
 */
export class Domain {
  readonly clock: Clock;
  readonly bus: EventBus;
  readonly bank: BankAdapter;
  readonly scheduler: Scheduler;
  readonly accounts: Accounts;
  readonly idempotency: IdempotencyStore;
  readonly rateLimiter: RateLimiter;
  readonly quota: StorageQuota;
  readonly payments: PaymentStore;
  readonly refunds: RefundStore;
  readonly payouts: PayoutStore;

  constructor(options: DomainOptions) {
    const now = () => options.clock.now();
    this.clock = options.clock;
    this.bus = options.bus ?? new EventBus();
    this.bank = options.bank ?? new FakeBank();
    this.scheduler = new Scheduler(options.clock);
    this.accounts = new Accounts(now);
    this.idempotency = new IdempotencyStore(now, DEFAULTS.idempotencyTtlMs);
    this.rateLimiter = new RateLimiter(now);
    this.quota = new StorageQuota(options.maxStoredBytesPerMerchant);
    const deps = {
      clock: this.clock,
      bus: this.bus,
      scheduler: this.scheduler,
      idempotency: this.idempotency,
      quota: this.quota,
      bank: this.bank,
    };
    this.payments = new PaymentStore(deps);
    this.refunds = new RefundStore(deps, this.payments);
    this.payouts = new PayoutStore(deps);
  }

  /** The caller behind an authenticated key. */
  caller(key: ApiKeyRecord): Caller {
    return {
      key,
      merchant: this.accounts.merchant(key.merchantId),
      terminal: this.accounts.terminal(key.terminalId),
    };
  }

  /** Stops every deadline; the clock's own timers are the clock owner's to dispose. */
  close(): void {
    this.scheduler.close();
  }
}
