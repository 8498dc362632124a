import { CODE } from '../../schemas/errors.js';
import type { BankAdapter } from './bank.js';
import type { Clock } from './clock.js';
import { found, refuse } from './errors.js';
import type { EventBus } from './events.js';
import { type IdempotencyStore, type IdempotentRequest, idempotentConflict } from './idempotency.js';
import { StorageQuota } from './quota.js';
import type { Scheduler } from './scheduler.js';
import type { Caller } from './validate.js';

/** What the stores of payments, refunds and payouts work with. */
export interface StoreDeps {
  clock: Clock;
  bus: EventBus;
  scheduler: Scheduler;
  idempotency: IdempotencyStore;
  quota: StorageQuota;
  bank: BankAdapter;
}

/** A creation answer and its status: 201 for a new object, 200 for a replay. */
export interface Created<T> {
  status: 200 | 201;
  body: T;
}

/**
 * The records of one kind by id, and the one creation step of payments, refunds and payouts. Every method is
 * synchronous, so check and commit never interleave.
 */
export class RecordStore<R extends { id: string }> {
  /** Every record by id, in creation order: what a snapshot saves and a restore refills. */
  readonly records = new Map<string, R>();
  protected readonly d: StoreDeps;
  readonly #noun: string;

  constructor(deps: StoreDeps, noun: string) {
    this.d = deps;
    this.#noun = noun;
  }

  get size(): number {
    return this.records.size;
  }

  /** Any record, for the control surface and the buyer's page; 404 when there is none. */
  get(id: string): R {
    return found(this.records, id, this.#noun);
  }

  /**
   * Spec 5.6: `make()` once per Idempotency-Key, remembered under it; the same key and body answer the record it
   * made again (`replay` true, status 200), another body or route is 409 `idempotent_conflict`. A new record counts
   * against its merchant's {@link StorageQuota}; a replay costs nothing.
   */
  protected createOnce<T>(
    caller: Caller,
    creation: Pick<IdempotentRequest, 'route' | 'key' | 'body'>,
    answer: (record: R, replay: boolean) => T,
    make: () => R,
  ): Created<T> {
    const merchantId = caller.merchant.id;
    return this.d.idempotency.once<Created<T>>(
      { ...creation, merchantId, mode: caller.key.mode },
      (id) => {
        // An entry names an object of this store and of the caller's mode; one that does not (a restored document
        // can say anything) is the key used for another request, not a replay to answer with something else.
        const record = this.records.get(id) as (R & { mode?: string | undefined }) | undefined;
        if (record === undefined || (record.mode !== undefined && record.mode !== caller.key.mode))
          throw idempotentConflict();
        return { status: 200, body: answer(record, true) };
      },
      () => {
        const cost = StorageQuota.cost(creation.body);
        this.d.quota.admit(merchantId, cost);
        const record = make();
        this.d.quota.add(merchantId, cost);
        return { objectId: record.id, answer: { status: 201, body: answer(record, false) } };
      },
    );
  }
}

/** `record` when the caller may see it (same merchant and same mode), else 404: no existence leak. */
export function owned<R extends { merchantId: string; mode: string }>(
  caller: Caller,
  record: R | undefined,
  noun: string,
): R {
  if (record?.merchantId !== caller.merchant.id || record.mode !== caller.key.mode) {
    throw refuse(CODE.not_found, `No ${noun} with this id.`);
  }
  return record;
}
