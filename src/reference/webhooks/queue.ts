import { Fifo } from '../util/fifo.js';

/**
 * Runs `fn` in a later turn of the event loop, after pending I/O: `setImmediate` where the runtime has it. Taken
 * when this module loads, so a test's fake timers do not hold deliveries back (they follow the service clock).
 */
const nextTurn: (fn: () => void) => void =
  typeof globalThis.setImmediate === 'function'
    ? globalThis.setImmediate.bind(globalThis)
    : (fn) => {
        setTimeout(fn, 0);
      };

/**
 * Attempts started per event-loop turn. A backlog falling due is started a few at a time, each batch after the I/O
 * of the previous turn (the API's requests included) has been served, so deliveries cannot take most turns of the
 * loop from the API.
 */
export const STARTS_PER_TURN = 8;

interface Job<T> {
  item: T;
  target: string;
  /** Called once the job has run or been dropped (a retry batch waits for it). */
  done: (() => void) | undefined;
}

/**
 * The send queue of the dispatcher: at most `maxInFlight` jobs run at once, and at most `perTarget` to one target
 * (an endpoint, or a `webhook_url` origin), so a receiver that hangs cannot take every slot. The rest wait in a
 * FIFO; a job whose target is full parks, and each job that ends moves its target's next parked job ahead of the
 * FIFO. Nothing runs in the turn that pushes it: the publisher (an API request) returns first.
 */
export class SendQueue<T> {
  readonly #maxInFlight: number;
  readonly #perTarget: number;
  readonly #run: (item: T) => Promise<void>;
  readonly #wanted: (item: T) => boolean;
  readonly #queue = new Fifo<Job<T>>();
  /** Parked jobs whose target freed a slot: started before anything still in the queue. */
  readonly #ready = new Fifo<Job<T>>();
  readonly #parked = new Map<string, Fifo<Job<T>>>();
  readonly #busy = new Map<string, number>();
  #inFlight = 0;
  #scheduled = false;
  #idleWaiters: Array<() => void> = [];

  /** `wanted` is asked when a job's turn comes: one no longer wanted is dropped without running. */
  constructor(
    maxInFlight: number,
    perTarget: number,
    run: (item: T) => Promise<void>,
    wanted: (item: T) => boolean,
  ) {
    this.#maxInFlight = maxInFlight;
    this.#perTarget = perTarget;
    this.#run = run;
    this.#wanted = wanted;
  }

  push(item: T, target: string, done?: () => void): void {
    this.#queue.push({ item, target, done });
    this.#schedule();
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** Resolves once no job is queued or running. */
  idle(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Drops every job that waits (queued, ready or parked), calling each `done`: the service is closing. */
  clear(): void {
    const settle = (job: Job<T>) => job.done?.();
    this.#queue.drain(settle);
    this.#ready.drain(settle);
    for (const parked of this.#parked.values()) parked.drain(settle);
    this.#parked.clear();
    this.#notifyIdle();
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    nextTurn(() => {
      this.#scheduled = false;
      this.#pump();
    });
  }

  #pump(): void {
    let started = 0;
    while (this.#inFlight < this.#maxInFlight) {
      if (started === STARTS_PER_TURN) {
        if (this.#hasWaiting()) this.#schedule();
        break;
      }
      const job = this.#ready.shift() ?? this.#queue.shift();
      if (!job) break;
      const busy = this.#busy.get(job.target) ?? 0;
      if (!this.#wanted(job.item)) {
        job.done?.();
        // It may have been the one promoted for its target's free slot: pass that slot on, or the jobs parked
        // behind it would wait forever.
        if (busy < this.#perTarget) this.#promote(job.target);
        continue;
      }
      if (busy >= this.#perTarget) {
        let parked = this.#parked.get(job.target);
        if (!parked) {
          parked = new Fifo();
          this.#parked.set(job.target, parked);
        }
        parked.push(job);
        continue;
      }
      this.#busy.set(job.target, busy + 1);
      this.#inFlight++;
      started++;
      void this.#run(job.item).finally(() => this.#finish(job));
    }
    this.#notifyIdle();
  }

  #finish(job: Job<T>): void {
    this.#inFlight--;
    const busy = this.#busy.get(job.target)! - 1;
    if (busy > 0) this.#busy.set(job.target, busy);
    else this.#busy.delete(job.target);
    this.#promote(job.target);
    job.done?.();
    if (this.#hasWaiting()) this.#schedule();
    this.#notifyIdle();
  }

  /** Moves the next job parked for `target` ahead of the queue (it parks again if the target is still full). */
  #promote(target: string): void {
    const parked = this.#parked.get(target);
    const next = parked?.shift();
    if (next) this.#ready.push(next);
    if (parked?.size === 0) this.#parked.delete(target);
  }

  #hasWaiting(): boolean {
    return this.#ready.size > 0 || this.#queue.size > 0;
  }

  #isIdle(): boolean {
    // Parked jobs need no check: each slot that ends or is passed on promotes one, so they exist only while their
    // target has a job running or a promoted job is ready.
    return this.#inFlight === 0 && !this.#hasWaiting();
  }

  #notifyIdle(): void {
    if (!this.#isIdle() || this.#idleWaiters.length === 0) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const w of waiters) w();
  }
}
