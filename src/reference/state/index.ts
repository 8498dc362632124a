import type { StateParts } from './parts.js';
import { type Built, buildState } from './restore.js';

export type { FaultRulesState, StateParts } from './parts.js';

export { type Built, buildState } from './restore.js';
import type { Snapshot } from './schema.js';
import { takeSnapshot } from './snapshot.js';

export { SNAPSHOT_FORMAT, SNAPSHOT_VERSION, type Snapshot, SnapshotSchema } from './schema.js';

/**
 * Whether the state is saved to its file (`psp-reference --state`), as `GET /_simulator/health` shows it.
 *
 * @example
 * const { state } = await (await fetch(`${base}/_simulator/health`, { headers: admin })).json();
 * if (state && !state.saved) console.warn(`not saved since ${state.last_saved_at}: ${state.last_error.message}`);
 */
export interface StateSaving {
  /** The state file, its real path (a symlink at the given path is followed). */
  file: string;
  /** False from a failed write until a write succeeds: the file then holds an older state. */
  saved: boolean;
  /** When a write last succeeded (ISO 8601); null before the first one. */
  last_saved_at: string | null;
  /** The last write's failure, while `saved` is false; null otherwise. */
  last_error: { at: string; message: string } | null;
}

/** What `POST /_simulator/restore` answers: the counts of what the reference now holds. */
export interface Restored {
  restored: { merchants: number; payments: number; refunds: number; payouts: number };
}

/**
 * The state routes as typed methods, on `ref.control` (async) beside the others.
 *
 * @example
 * ```ts
 * const clean = await ref.control.snapshot();
 * // ... a test creates payments, endpoints, keys ...
 * await ref.control.restore(clean); // as it was, in milliseconds
 * ```
 */
export interface StateApi {
  /** `GET /_simulator/snapshot`: the whole state, secrets included. */
  snapshot(): Snapshot;
  /**
   * `POST /_simulator/restore`: replaces the whole state with the document's; the admin token in force stays.
   * A document that is not a valid snapshot is a DomainError 400 `bad_request` and changes nothing.
   */
  restore(doc: unknown): Restored;
}

/**
 * The state API over a reference's parts, plus `apply` for a document already built (the start from a file). A
 * restore checks and builds the whole new state first; only then does it swap it in, in one synchronous step that
 * cannot fail, so a refused document changes nothing.
 */
export function createState(parts: StateParts): StateApi & { apply(built: Built): Restored } {
  const apply = (built: Built): Restored => {
    commit(parts, built);
    const { merchants, payments, refunds, payouts } = built;
    return {
      restored: {
        merchants: merchants.size,
        payments: payments.size,
        refunds: refunds.size,
        payouts: payouts.size,
      },
    };
  };
  return {
    snapshot: () => takeSnapshot(parts),
    restore: (input) => apply(buildState(input, parts.faults)),
    apply,
  };
}

function refill<T>(map: Map<string, T>, next: Map<string, T>): void {
  map.clear();
  for (const [k, v] of next) map.set(k, v);
}

/** Swaps a built state in: records, clock, deadlines, webhooks, fault rules, and streams of keys now gone. */
function commit(parts: StateParts, built: Built): void {
  const { domain, webhooks, hub } = parts;
  const { accounts, clock } = domain;
  for (const id of accounts.merchants.keys()) domain.rateLimiter.reset(id);
  refill(accounts.merchants, built.merchants);
  refill(accounts.shops, built.shops);
  refill(accounts.terminals, built.terminals);
  accounts.replaceKeys(built.keys);
  refill(domain.payments.records, built.payments);
  refill(domain.refunds.records, built.refunds);
  refill(domain.payouts.records, built.payouts);
  refill(domain.idempotency.records, built.idempotency);
  domain.quota.replace(built.usage);
  // Under a manual clock the snapshot's time comes back too; a real clock is the wall clock whatever the document.
  if (clock.mode === 'manual' && 'set' in clock && typeof clock.set === 'function')
    clock.set(built.doc.clock.now);
  domain.scheduler.clear();
  for (const p of built.payments.values()) domain.payments.rearm(p);
  for (const p of built.payouts.values()) domain.payouts.rearm(p);
  webhooks.importState(built.webhooks);
  built.commitFaults();
  parts.facts = { ...built.doc.facts };
  hub.endWhere((keyId) => accounts.keys.get(keyId)?.revokedAt === null);
}
