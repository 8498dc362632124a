import { Fifo } from '../util/fifo.js';

/** `scheme://host:port` of a URL, cheaply: receivers are told apart by origin. */
export function originOf(url: string): string {
  const m = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(url);
  return (m ? m[0] : url).toLowerCase();
}

/**
 * The per-receiver bound of the dispatcher: at most `limit` requests in flight to one target (an endpoint, or a
 * `webhook_url` origin), so a receiver that hangs cannot take every slot. A job whose receiver is full parks; each
 * slot that ends moves that receiver's next parked job to {@link ReceiverSlots.ready}, which goes before the queue.
 */
export class ReceiverSlots<J> {
  readonly #limit: number;
  readonly #busy = new Map<string, number>();
  readonly #parked = new Map<string, Fifo<J>>();
  /** Parked jobs whose receiver freed a slot: started before anything still in the queue. */
  readonly ready = new Fifo<J>();

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Takes a slot of `target` for `job` and answers true, or parks the job until one is free and answers false. */
  take(target: string, job: J): boolean {
    const busy = this.#busy.get(target) ?? 0;
    if (busy < this.#limit) {
      this.#busy.set(target, busy + 1);
      return true;
    }
    let parked = this.#parked.get(target);
    if (!parked) {
      parked = new Fifo();
      this.#parked.set(target, parked);
    }
    parked.push(job);
    return false;
  }

  /** One request to `target` ended: its slot goes to the next job parked for it, if any. */
  release(target: string): void {
    const busy = this.#busy.get(target)! - 1;
    if (busy > 0) this.#busy.set(target, busy);
    else this.#busy.delete(target);
    this.#promote(target);
  }

  /**
   * A job dropped before it started (cancelled) may have been the one promoted for its receiver's free slot: pass
   * that slot on, or the jobs parked behind it would wait forever.
   */
  passOn(target: string): void {
    if ((this.#busy.get(target) ?? 0) < this.#limit) this.#promote(target);
  }

  /** Hands every waiting job (ready and parked) to `settle` and forgets them: the dispatcher is closing. */
  drain(settle: (job: J) => void): void {
    this.ready.drain(settle);
    for (const parked of this.#parked.values()) parked.drain(settle);
    this.#parked.clear();
  }

  /** Moves the next job parked for `target` ahead of the queue (it parks again if the receiver is still full). */
  #promote(target: string): void {
    const parked = this.#parked.get(target);
    if (!parked) return;
    const next = parked.shift();
    if (next) this.ready.push(next);
    if (parked.size === 0) this.#parked.delete(target);
  }
}
