import { prng } from '../util/prng.js';
import { CODE } from '../../schemas/errors.js';
import { refuse } from '../domain/errors.js';
import { randomToken } from '../domain/ids.js';
import { ConnectionReset } from './reset.js';
import {
  checkFaultRule,
  type FaultRule,
  type FaultRuleInput,
  MAX_FAULT_RULES as MAX_RULES,
  parseFaultRules,
  pathMatches,
} from './rule.js';

export type { FaultRule, FaultRuleInput } from './rule.js';
export { ConnectionReset } from './reset.js';
export { MAX_FAULT_RULES, parseFaultRules } from './rule.js';

/**
 * The fault rules as typed methods, one per `/_simulator/faults` route; on `ref.control` (async) beside the others.
 *
 * @example
 * ```ts
 * const ref = createReference({ seed: 42 });
 * await ref.control.addFault({ kind: 'reset', phase: 'after', probability: 0.3, match: { method: 'POST' } });
 * (await ref.control.listFaults()).items[0].hits; // times it fired
 * await ref.control.clearFaults();
 * ```
 */
export interface FaultsApi {
  /** `POST /_simulator/faults`: the rule with its `id` and `hits: 0`; 400 `bad_request` naming a bad field. */
  addFault(rule: FaultRuleInput): FaultRule;
  /** `GET /_simulator/faults`: every rule in the order added, with `hits`. */
  listFaults(): { items: FaultRule[] };
  /** `DELETE /_simulator/faults/{id}`: 404 `not_found` for an unknown id. */
  removeFault(id: string): void;
  /** `DELETE /_simulator/faults`: every rule removed. */
  clearFaults(): void;
}

/**
 * What a request is matched on. `merchantId` (the merchant of a valid key, else undefined) is asked at most once
 * per request, and only when a rule's method and path match.
 */
export interface FaultRequest {
  method: string;
  path: string;
  merchantId: () => string | undefined;
}

/** Whether `owner` (a merchant, or undefined for the admin) sees the rule. */
const ownedBy = (rule: FaultRule, owner: string | undefined) =>
  owner === undefined || rule.match.merchant_id === owner;

// Not asked yet (undefined is an answer: no valid key).
const UNASKED = Symbol('unasked');

/** The fault rules of one reference: the list, the seeded draws, and the real-time waits they cause. */
export class Faults implements FaultsApi {
  readonly #draw: () => number;
  readonly #rules: FaultRule[] = [];
  // Ends every wait at close(), so a 60-second timeout does not hold the process.
  readonly #closed = new AbortController();

  /**
   * @param seed Makes `probability` draws repeatable. Default: random.
   * @throws TypeError for a seed that is not a safe integer, or a bad rule (naming its index and field).
   */
  constructor(options: { seed?: number | undefined; rules?: unknown } = {}) {
    const { seed = crypto.getRandomValues(new Uint32Array(1))[0]!, rules = [] } = options;
    if (!Number.isSafeInteger(seed)) throw new TypeError(`seed must be an integer, got ${String(seed)}`);
    this.#draw = prng(seed);
    for (const rule of parseFaultRules(rules)) this.addFault(rule);
  }

  /**
   * Adds a rule. `owner`: the merchant of the merchant admin token that adds it; the rule then matches that
   * merchant's requests alone (its `match.merchant_id`, which may name no other merchant).
   */
  addFault(input: FaultRuleInput, owner?: string): FaultRule {
    const rule = checkFaultRule(input);
    if ('error' in rule) throw refuse(CODE.bad_request, rule.error);
    if (owner !== undefined) {
      if (rule.match.unauthenticated)
        throw refuse(
          CODE.bad_request,
          "match.unauthenticated: a merchant admin token's rules match its own merchant's requests alone.",
        );
      if (rule.match.merchant_id !== undefined && rule.match.merchant_id !== owner)
        throw refuse(CODE.bad_request, "match.merchant_id: must be the token's own merchant, or left out.");
      rule.match = { ...rule.match, merchant_id: owner };
    }
    if (this.#rules.length >= MAX_RULES) {
      throw refuse(CODE.too_many_rules, `At most ${MAX_RULES} fault rules; delete some first.`);
    }
    const stored = { id: `flt_${randomToken(16)}`, ...rule };
    this.#rules.push(stored);
    return { ...stored, match: { ...stored.match } };
  }

  /** Every rule in the order added; with `owner`, that merchant's alone (the rules whose `match.merchant_id` is it). */
  listFaults(owner?: string): { items: FaultRule[] } {
    return {
      items: this.#rules.filter((r) => ownedBy(r, owner)).map((r) => ({ ...r, match: { ...r.match } })),
    };
  }

  /** Removes a rule; 404 for an unknown id, or with `owner` for another merchant's rule. */
  removeFault(id: string, owner?: string): void {
    const i = this.#rules.findIndex((r) => r.id === id && ownedBy(r, owner));
    if (i < 0) throw refuse(CODE.not_found, 'No fault rule with this id.');
    this.#rules.splice(i, 1);
  }

  /** Removes every rule; with `owner`, that merchant's alone. */
  clearFaults(owner?: string): void {
    if (owner === undefined) this.#rules.length = 0;
    else this.#rules.splice(0, this.#rules.length, ...this.#rules.filter((r) => !ownedBy(r, owner)));
  }

  /**
   * The rule that applies to a request: the first, in the order added, that matches and fires (counted in its
   * `hits`). A rule at its `count` is skipped; a request without a valid key matches only a rule with
   * `match.unauthenticated`; a draw is taken only for a probability strictly between 0 and 1.
   */
  pick(req: FaultRequest): FaultRule | undefined {
    let merchant: string | undefined | typeof UNASKED = UNASKED;
    const merchantId = () => {
      if (merchant === UNASKED) merchant = req.merchantId();
      return merchant;
    };
    for (const rule of this.#rules) {
      if (rule.count !== undefined && rule.hits >= rule.count) continue;
      const m = rule.match;
      if (m.method !== undefined && m.method !== req.method) continue;
      if (m.path !== undefined && !pathMatches(m.path, req.path)) continue;
      if (!m.unauthenticated && merchantId() === undefined) continue;
      if (m.merchant_id !== undefined && m.merchant_id !== merchantId()) continue;
      if (rule.probability < 1 && !(rule.probability > 0 && this.#draw() < rule.probability)) continue;
      rule.hits += 1;
      return rule;
    }
    return undefined;
  }

  /** The rules as a snapshot keeps them (with `id` and `hits`). */
  list(): Record<string, unknown>[] {
    return this.listFaults().items as unknown as Record<string, unknown>[];
  }

  /**
   * A restore's two steps: checks every rule of a snapshot (a DomainError 400 naming the bad one), and answers
   * what puts them in force, ids and hits kept.
   */
  prepare(rules: Record<string, unknown>[]): () => void {
    if (rules.length > MAX_RULES) throw refuse(CODE.bad_request, `At most ${MAX_RULES} fault rules.`);
    const ids = new Set<unknown>();
    const checked = rules.map(({ id, hits, ...input }, i) => {
      const rule = checkFaultRule(input, `fault_rules[${i}].`);
      if ('error' in rule) throw refuse(CODE.bad_request, `Not a valid snapshot: ${rule.error}`);
      if (typeof id !== 'string' || !Number.isSafeInteger(hits) || (hits as number) < 0)
        throw refuse(CODE.bad_request, `Not a valid snapshot: fault_rules[${i}] needs its id and hits.`);
      // DELETE /_simulator/faults/{id} names one rule.
      if (ids.has(id))
        throw refuse(CODE.bad_request, `Not a valid snapshot: fault_rules[${i}] repeats an id.`);
      ids.add(id);
      return { ...rule, id, hits: hits as number };
    });
    return () => this.#rules.splice(0, this.#rules.length, ...checked);
  }

  /** The four control methods, bound, for `ref.simulator`. */
  api(): FaultsApi {
    return {
      addFault: (rule) => this.addFault(rule),
      listFaults: () => this.listFaults(),
      removeFault: (id) => this.removeFault(id),
      clearFaults: () => this.clearFaults(),
    };
  }

  /**
   * Waits `ms` of real time (faults stand for the network, whose deadlines are real time whatever the service
   * clock says). Rejects with {@link ConnectionReset} early when `signal` aborts (the client left) or at
   * {@link close}.
   */
  wait(ms: number, ruleId: string, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const signals = [this.#closed.signal, ...(signal ? [signal] : [])];
      if (signals.some((s) => s.aborted)) return reject(new ConnectionReset(ruleId));
      const end = (reset: boolean) => {
        clearTimeout(timer);
        for (const s of signals) s.removeEventListener('abort', onAbort);
        if (reset) reject(new ConnectionReset(ruleId));
        else resolve();
      };
      const onAbort = () => end(true);
      const timer = setTimeout(end, ms, false);
      for (const s of signals) s.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Ends every wait in progress (with a reset); later waits end at once. */
  close(): void {
    this.#closed.abort();
  }
}
