import { Fifo } from '../util/fifo.js';
import type { OutgoingWebhook } from './events.js';

/**
 * The events kept for `POST /_cabinet/events/{id}/resend`, newest kept, oldest dropped first, within two budgets:
 * the bytes of their bodies and their number. An event whose body alone is over the byte budget is not kept.
 */
export class EventHistory {
  readonly #byId = new Map<string, OutgoingWebhook>();
  // Insertion order as a queue: dropping the oldest is O(1), where the first key of a Map that has seen many
  // deletions is found by walking over their holes.
  readonly #order = new Fifo<OutgoingWebhook>();
  readonly #maxBytes: number;
  readonly #maxEvents: number;
  #bytes = 0;

  constructor(maxBytes: number, maxEvents: number) {
    this.#maxBytes = maxBytes;
    this.#maxEvents = maxEvents;
  }

  /** Keeps `event`, dropping the oldest events until both budgets hold. */
  add(event: OutgoingWebhook): void {
    if (event.body.byteLength > this.#maxBytes || this.#byId.has(event.id)) return;
    this.#byId.set(event.id, event);
    this.#order.push(event);
    this.#bytes += event.body.byteLength;
    while (this.#bytes > this.#maxBytes || this.#byId.size > this.#maxEvents) {
      const oldest = this.#order.shift()!;
      this.#byId.delete(oldest.id);
      this.#bytes -= oldest.body.byteLength;
    }
  }

  /** The kept events, oldest first (snapshots). */
  all(): OutgoingWebhook[] {
    return [...this.#byId.values()];
  }

  /** Forgets every event (a restore refills it with `add`). */
  clear(): void {
    this.#byId.clear();
    this.#order.drain(() => {});
    this.#bytes = 0;
  }

  get(id: string): OutgoingWebhook | undefined {
    return this.#byId.get(id);
  }

  /** Events kept. */
  get size(): number {
    return this.#byId.size;
  }

  /** Bytes of the kept events' bodies. */
  get bytes(): number {
    return this.#bytes;
  }
}
