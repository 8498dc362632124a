// The bounds of one run of the kit: its request and time budgets, each check's end (its waits and requests stop
// with it, so nothing of a check outlives it), and the bounded clean-up. What it spends and when it stops, in one
// place; the wire and the fixtures ask it before every request.
import { sleep } from '../client/wait.js';
import { CheckSkipped } from './outcomes.js';

/** How long one raw request (its answer read whole) may take. */
export const REQUEST_TIMEOUT_MS = 15_000;

/** The budgets of a run, as run.ts resolves them. */
export interface BudgetLimits {
  maxRequests: number;
  /** Epoch ms after which no request of a check is sent. */
  deadline: number;
}

/** The budgets and check lifetimes of one run. */
export class Budget {
  /** Requests sent so far. */
  requests = 0;
  /** Whether the time or request budget ran out (a check was skipped for it). */
  spent = false;
  readonly #limits: BudgetLimits;
  #cleaning = false;
  // Aborted when the check in progress ends or runs out of time.
  #check: AbortController | undefined;

  constructor(limits: BudgetLimits) {
    this.#limits = limits;
  }

  /** Throws CheckSkipped when the check has ended or a budget is spent; the clean-up is never cut by a budget. */
  ensure(): void {
    if (this.#check?.signal.aborted) throw new CheckSkipped("the check's time limit is spent");
    if (this.#cleaning) return;
    const why =
      this.requests >= this.#limits.maxRequests
        ? `the run's budget of ${this.#limits.maxRequests} requests is spent`
        : Date.now() > this.#limits.deadline
          ? "the run's time limit is spent"
          : undefined;
    if (why) {
      this.spent = true;
      throw new CheckSkipped(why);
    }
  }

  /** Counts a request, after {@link ensure}. */
  spend(): void {
    this.ensure();
    this.requests += 1;
  }

  /** Starts a check: what it waits on and sends is stopped by {@link endCheck}. */
  startCheck(): void {
    this.#check = new AbortController();
  }

  /**
   * Ends the check in progress: a wait still running ends, a request still in flight is aborted, and any later
   * request of it is skipped (until the next {@link startCheck}).
   */
  endCheck(): void {
    this.#check?.abort();
  }

  /** Aborts when the check in progress ends (undefined before the first). */
  get signal(): AbortSignal | undefined {
    return this.#check?.signal;
  }

  /** A request's signal: its own time limit, and the end of the check that sends it. */
  requestSignal(): AbortSignal {
    const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
    return this.#check ? AbortSignal.any([timeout, this.#check.signal]) : timeout;
  }

  /** Waits `ms` of real time, ending early when the check ends. */
  sleep(ms: number): Promise<void> {
    return sleep(ms, this.#check?.signal);
  }

  /**
   * Runs the clean-up within `limitMs` in all: budgets no longer apply, and its requests stop at the limit (`stop`
   * tells `work` when to give up looping).
   */
  async cleanUp<T>(limitMs: number, work: (stop: AbortSignal) => Promise<T>): Promise<T> {
    this.#cleaning = true;
    this.startCheck();
    const check = this.#check!;
    const timer = setTimeout(() => check.abort(), limitMs);
    try {
      return await work(check.signal);
    } finally {
      clearTimeout(timer);
      this.endCheck();
    }
  }
}
