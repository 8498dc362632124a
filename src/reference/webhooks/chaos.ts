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

/** The merchants as chaos needs them. */
export interface ChaosMerchants {
  /** The merchant of a shop, or undefined. */
  ofShop(shopId: string): string | undefined;
  /** Whether a merchant exists now. */
  exists(merchantId: string): boolean;
}

interface InForce {
  config: WebhookChaosConfig;
  draw: () => number;
}

/**
 * The chaos of one webhook service: off until configured. One configuration for every merchant, and one per merchant
 * set with its merchant admin token, which takes precedence for that merchant's events and draws from its own seed:
 * a parallel worker's deliveries are the same whatever the other workers do.
 */
export class WebhookChaos {
  #all: InForce | undefined;
  readonly #byMerchant = new Map<string, InForce>();
  readonly #merchants: ChaosMerchants;

  /** `merchants`: who owns an event's shop, and which merchants exist, for the per-merchant chaos. Default: none. */
  constructor(merchants: ChaosMerchants = { ofShop: () => undefined, exists: () => false }) {
    this.#merchants = merchants;
  }

  /**
   * Validates and puts `input` in force, for `merchantId` alone when given (the draws start again from its seed); a
   * DomainError 400 `bad_request` naming the field otherwise, and nothing changes.
   */
  set(input: WebhookChaosInput | unknown, merchantId?: string): WebhookChaosConfig {
    const v = parseControl('webhookChaos', input);
    const config: WebhookChaosConfig = {
      seed: v.seed ?? 0,
      duplicate: v.duplicate ?? 0,
      reorder: v.reorder ?? 0,
      delay: v.delay ?? { min_seconds: 0, max_seconds: 0 },
    };
    const inForce = { config, draw: prng(config.seed) };
    if (merchantId === undefined) this.#all = inForce;
    else {
      // Bounded by the merchants there are: a merchant gone (a restore replaced them) leaves its entry here.
      for (const id of this.#byMerchant.keys()) if (!this.#merchants.exists(id)) this.#byMerchant.delete(id);
      this.#byMerchant.set(merchantId, inForce);
    }
    return structuredClone(config);
  }

  /** The chaos in force (for `merchantId`: its own alone), or null when off. */
  get(merchantId?: string): WebhookChaosConfig | null {
    const inForce = merchantId === undefined ? this.#all : this.#byMerchant.get(merchantId);
    return inForce ? structuredClone(inForce.config) : null;
  }

  /** Turns chaos off (for `merchantId`: its own; the chaos for every merchant then applies to it again). */
  clear(merchantId?: string): void {
    if (merchantId === undefined) this.#all = undefined;
    else this.#byMerchant.delete(merchantId);
  }

  /**
   * The plan of the next delivery of an event of `shopId`, drawn now; undefined while no chaos applies to it
   * (delivery then draws nothing).
   */
  plan(shopId: string): ChaosPlan | undefined {
    const merchant = this.#byMerchant.size > 0 ? this.#merchants.ofShop(shopId) : undefined;
    const inForce = (merchant !== undefined ? this.#byMerchant.get(merchant) : undefined) ?? this.#all;
    if (!inForce) return undefined;
    const c = inForce.config;
    // Always three draws, whatever the rates: one event's plan never shifts the next one's.
    const duplicate = inForce.draw() < c.duplicate;
    const reorder = inForce.draw() < c.reorder;
    const span = c.delay.max_seconds - c.delay.min_seconds;
    const delayMs = Math.round((c.delay.min_seconds + inForce.draw() * span) * 1000);
    return { duplicate, reorder, delayMs };
  }
}
