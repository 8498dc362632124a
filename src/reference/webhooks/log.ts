import { iso } from '../domain/ids.js';
import type { ChaosKind } from './chaos.js';

/** One delivery attempt as `GET /_cabinet/webhook-endpoints/{id}/deliveries` lists it. */
export interface DeliveryAttempt {
  event_id: string;
  event: string;
  /** 1 for the first attempt of a series, up to 9. */
  attempt: number;
  /** The receiver's HTTP status; null when no answer arrived (timeout, reset, refused, garbage). */
  status_code: number | null;
  /** Why the attempt failed; null when delivered. */
  error: string | null;
  /** RFC 3339 service-clock time the attempt started. */
  at: string;
  /** RFC 3339 service-clock time of the next retry; null when delivered or given up. */
  next_attempt_at: string | null;
  /** Present when webhook chaos made this series: a `duplicate`, a `reordered` or a `delayed` delivery. */
  chaos?: ChaosKind | undefined;
}

/** An attempt as kept: times stay numbers until someone asks for the log. */
export interface AttemptRecord {
  eventId: string;
  event: string;
  attempt: number;
  status: number | null;
  error: string | null;
  at: number;
  next: number | null;
  chaos?: ChaosKind | undefined;
}

/**
 * The newest `limit` attempts of one endpoint, oldest first: a busy endpoint costs a fixed amount of memory however
 * many events it receives.
 */
export class DeliveryLog {
  readonly #limit: number;
  readonly #items: AttemptRecord[] = [];

  constructor(limit: number) {
    this.#limit = Math.max(1, Math.floor(limit));
  }

  add(entry: AttemptRecord): void {
    this.#items.push(entry);
    if (this.#items.length > this.#limit) this.#items.shift();
  }

  /** The kept attempts, oldest first. */
  records(): AttemptRecord[] {
    return [...this.#items];
  }

  /** Copies, oldest first. */
  list(): DeliveryAttempt[] {
    return this.records().map((e) => ({
      event_id: e.eventId,
      event: e.event,
      attempt: e.attempt,
      status_code: e.status,
      error: e.error,
      at: iso(e.at),
      next_attempt_at: e.next === null ? null : iso(e.next),
      ...(e.chaos ? { chaos: e.chaos } : {}),
    }));
  }

  get size(): number {
    return this.#items.length;
  }
}
