/**
 * Webhook chaos: what real networks and real senders do to deliveries (spec 6.1 rule 4: "An event may arrive more
 * than once"; and out of order, and late), done on purpose and seeded, so a merchant's handler meets it in a test
 * (issue 41). Every decision is drawn when an event is dispatched, in the order events are dispatched: with a manual
 * clock the same seed and the same calls give the same deliveries in the same order.
 */
import { parseControl, type WebhookChaosInput } from '../domain/cabinet-inputs.js';
import { prng } from '../util/prng.js';

/** What a delivery's chaos was, as its delivery-log entries say. */
export type ChaosKind = 'duplicate' | 'reordered' | 'delayed';

/** The chaos in force: the JSON of `GET /_simulator/webhook-chaos`, defaults filled in. */
export interface WebhookChaosConfig {
  /** The seed of the draws. */
  seed: number;
  /** Probability that a delivered event is delivered again (same id and body, signed again) after the first. */
  duplicate: number;
  /** Probability that an event is held back and sent after the next event of the same endpoint. */
  reorder: number;
  /** The range each first attempt waits, on the service clock. */
  delay: { min_seconds: number; max_seconds: number };
}

/** What happens to one event's delivery to one target. */
export interface ChaosPlan {
  /** Deliver it once more after it was delivered. */
  duplicate: boolean;
  /** Hold it until the next event to the same target has been sent. */
  reorder: boolean;
  /** Milliseconds its first attempt waits on the service clock. */
  delayMs: number;
}

/** The chaos of one webhook service: off until configured. */
export class WebhookChaos {
  #config: WebhookChaosConfig | undefined;
  #draw: () => number = Math.random;

  /**
   * Validates and puts `input` in force (the draws start again from its seed); a DomainError 400 `bad_request` naming
   * the field otherwise, and nothing changes.
   */
  set(input: WebhookChaosInput | unknown): WebhookChaosConfig {
    const v = parseControl('webhookChaos', input);
    const config: WebhookChaosConfig = {
      seed: v.seed ?? 0,
      duplicate: v.duplicate ?? 0,
      reorder: v.reorder ?? 0,
      delay: v.delay ?? { min_seconds: 0, max_seconds: 0 },
    };
    this.#config = config;
    this.#draw = prng(config.seed);
    return structuredClone(config);
  }

  /** The chaos in force, or null when off. */
  get(): WebhookChaosConfig | null {
    return this.#config ? structuredClone(this.#config) : null;
  }

  /** Turns chaos off. */
  clear(): void {
    this.#config = undefined;
  }

  /** The plan of the next delivery, drawn now; undefined while chaos is off (delivery then draws nothing). */
  plan(): ChaosPlan | undefined {
    const c = this.#config;
    if (!c) return undefined;
    // Always three draws, whatever the rates: one event's plan never shifts the next one's.
    const duplicate = this.#draw() < c.duplicate;
    const reorder = this.#draw() < c.reorder;
    const span = c.delay.max_seconds - c.delay.min_seconds;
    const delayMs = Math.round((c.delay.min_seconds + this.#draw() * span) * 1000);
    return { duplicate, reorder, delayMs };
  }
}
