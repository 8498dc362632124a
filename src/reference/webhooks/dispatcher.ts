import { webhookHeaders } from '../../internal/webhook-signature.js';
import type { Clock, Timer } from '../domain/clock.js';
import type { ChaosKind, WebhookChaos } from './chaos.js';
import { iso } from '../domain/ids.js';
import type { Endpoint, EndpointRegistry } from './endpoints.js';
import type { OutgoingWebhook } from './events.js';
import { PendingBound } from './pending.js';
import { post } from './post.js';
import { SendQueue } from './queue.js';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS, RetryTimers } from './retries.js';

/** A pending series as a snapshot keeps it. */
export interface PendingSeries {
  event: OutgoingWebhook;
  /** The endpoint it goes to; undefined when it goes to the payment's `webhook_url`. */
  endpointId: string | undefined;
  /** Attempts made. */
  attempt: number;
  /** Service-clock time of the retry it waits for; null while queued or in flight. */
  dueAt: number | null;
}

/** One series of attempts of one event to one target. */
interface Delivery extends PendingSeries {
  readonly key: string;
  /** What the per-receiver in-flight bound counts: the endpoint, or the origin of the `webhook_url`. */
  readonly target: string;
  /** What the pending bound counts it under: the endpoint, or for a `webhook_url` its shop (whose log it is in). */
  readonly group: string;
  /** The body it keeps alive while pending. */
  readonly bytes: number;
  timer: Timer | undefined;
  cancelled: boolean;
  /** What chaos did to this series, for its delivery-log entries. */
  chaos: ChaosKind | undefined;
  /** Chaos: once delivered, the event goes again as a series of its own. */
  duplicate: boolean;
  /** Chaos: the series held behind this one, sent once this one's first attempt has its answer. */
  thenRelease: Delivery | undefined;
}

/** The options of `WebhookServiceDeps`, defaults applied. */
export interface DispatcherOptions {
  clock: Clock;
  fetch: typeof fetch;
  registry: EndpointRegistry;
  logger: ((line: string) => void) | undefined;
  maxInFlight: number;
  /** `maxInFlightPerEndpoint` of the service; a `webhook_url` origin counts as one target. */
  maxInFlightPerTarget: number;
  deadlineMs: number;
  maxPendingPerEndpoint: number;
  maxPendingBytesPerEndpoint: number;
  /** The chaos in force (off unless configured); its plans are drawn here, at dispatch. */
  chaos: WebhookChaos;
}

/**
 * How long chaos holds a reordered event when no other event to its endpoint comes after it, on the service clock:
 * it is sent then, late rather than never.
 */
export const REORDER_HOLD_MS = 5_000;

/** `scheme://host:port` of a URL, cheaply: receivers are told apart by origin. */
function originOf(url: string): string {
  const m = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(url);
  return (m ? m[0] : url).toLowerCase();
}

/** What the per-receiver in-flight bound counts a series under: its endpoint, or its `webhook_url`'s origin. */
const targetOf = (event: OutgoingWebhook, endpointId: string | undefined) =>
  endpointId ?? `url ${originOf(event.webhookUrl!)}`;

/**
 * Queues and sends deliveries: at most `maxInFlight` requests at once, the rest wait in a FIFO; failed attempts are
 * retried on the service clock. Nothing here is awaited by the code that publishes events.
 */
export class Dispatcher {
  readonly #options: DispatcherOptions;
  readonly #active = new Map<string, Delivery>();
  readonly #aborts = new Set<AbortController>();
  readonly #queue: SendQueue<Delivery>;
  readonly #retries: RetryTimers<Delivery>;
  readonly #bound: PendingBound<Delivery>;
  /** Chaos: the reordered series of each target, held until the next one to that target is queued. */
  readonly #held = new Map<string, Delivery>();
  #closed = false;

  constructor(options: DispatcherOptions) {
    this.#options = options;
    this.#bound = new PendingBound(options.maxPendingPerEndpoint, options.maxPendingBytesPerEndpoint);
    this.#queue = new SendQueue(
      options.maxInFlight,
      options.maxInFlightPerTarget,
      (d) => this.#attempt(d).catch((err: unknown) => this.#failed(d, err)),
      (d) => !d.cancelled && !this.#closed,
    );
    this.#retries = new RetryTimers(options.clock, (due) =>
      Promise.all(
        due.map((d) => new Promise<void>((resolve) => this.#queue.push(d, d.target, resolve))),
      ).then(() => {}),
    );
  }

  /** Starts a fresh series of `event` to every target that takes it now; replaces a pending series to the same target. */
  dispatch(event: OutgoingWebhook): number {
    if (this.#closed) return 0;
    const { registry, logger } = this.#options;
    if (event.webhookUrl !== null) {
      if (registry.ofShop(event.shopId).length === 0) {
        logger?.(
          `webhook ${event.id} ${event.event} not delivered to the payment's webhook_url: the shop has no webhook endpoint whose secret could sign it`,
        );
        return 0;
      }
      this.#send(event, undefined);
      return 1;
    }
    let n = 0;
    for (const endpoint of registry.ofShop(event.shopId)) {
      // The strict filter: an empty set takes every event, otherwise only the selected ones.
      if (endpoint.events.length > 0 && !endpoint.events.includes(event.event)) continue;
      this.#send(event, endpoint.id);
      n++;
    }
    return n;
  }

  /** Starts one series as chaos plans it (without chaos: at once, once). */
  #send(event: OutgoingWebhook, endpointId: string | undefined): void {
    const plan = this.#options.chaos.plan(event.shopId);
    if (!plan) return void this.#start(event, endpointId);
    const now = this.#options.clock.now();
    const target = targetOf(event, endpointId);
    // One event held per target at a time: the next one is the event it is held behind.
    const before = this.#held.get(target);
    const held = plan.reorder && !before;
    const wait = held ? REORDER_HOLD_MS : plan.delayMs;
    const d = this.#start(event, endpointId, 0, wait > 0 ? now + wait : null);
    d.chaos = held ? 'reordered' : plan.delayMs > 0 ? 'delayed' : undefined;
    d.duplicate = plan.duplicate;
    if (before) {
      this.#held.delete(target);
      d.thenRelease = before;
    }
    if (held) this.#held.set(target, d);
  }

  /**
   * The series held behind `d`, queued now that `d`'s first attempt has its answer: it reaches the receiver after
   * the event it was held behind, whatever the concurrency of the target.
   */
  #releaseHeld(d: Delivery): void {
    const held = d.thenRelease;
    d.thenRelease = undefined;
    if (!held || held.cancelled || held.dueAt === null) return;
    held.timer?.cancel();
    held.timer = undefined;
    held.dueAt = null;
    this.#queue.push(held, held.target);
  }

  /** Stops every pending series to the endpoint (it was deleted); an attempt in flight finishes but is not retried. */
  dropEndpoint(endpointId: string): void {
    for (const d of this.#active.values()) if (d.endpointId === endpointId) this.#cancel(d);
  }

  /** Resolves once no attempt is queued or in flight (retries waiting on the clock do not count). */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  /** Series that still have an attempt queued, in flight or waiting on the clock. */
  get pending(): number {
    return this.#active.size;
  }

  get inFlight(): number {
    return this.#queue.inFlight;
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const d of this.#active.values()) this.#cancel(d);
    this.#retries.cancelAll();
    for (const a of this.#aborts) a.abort(new Error('the webhook service closed'));
    this.#queue.clear();
    await this.idle();
  }

  /** Every pending series, oldest first (snapshots). */
  series(): PendingSeries[] {
    return [...this.#active.values()].map(({ event, endpointId, attempt, dueAt }) => ({
      event,
      endpointId,
      attempt,
      dueAt,
    }));
  }

  /**
   * Replaces every pending series with a snapshot's: each waits for its retry on the clock, or is queued at once
   * (one that was queued or in flight when the snapshot was taken is attempted again: at least once, as ever).
   */
  replaceSeries(list: PendingSeries[]): void {
    for (const d of [...this.#active.values()]) this.#cancel(d);
    for (const s of list) this.#start(s.event, s.endpointId, s.attempt, s.dueAt);
  }

  #start(
    event: OutgoingWebhook,
    endpointId: string | undefined,
    attempt = 0,
    dueAt: number | null = null,
    again = false,
  ): Delivery {
    // Chaos's second delivery of an event is a series of its own: it does not replace the first.
    const key = `${event.id}|${endpointId ?? 'url'}${again ? '|again' : ''}`;
    const previous = this.#active.get(key);
    if (previous) this.#cancel(previous);
    const target = targetOf(event, endpointId);
    const group = endpointId ?? `shop ${event.shopId}`;
    const d: Delivery = {
      key,
      event,
      endpointId,
      target,
      group,
      bytes: event.body.byteLength,
      attempt,
      timer: undefined,
      dueAt,
      cancelled: false,
      chaos: again ? 'duplicate' : undefined,
      duplicate: false,
      thenRelease: undefined,
    };
    this.#active.set(key, d);
    for (const old of this.#bound.add(group, d)) this.#giveUp(old);
    if (dueAt === null) this.#queue.push(d, target);
    else d.timer = this.#retries.schedule(d, Math.max(0, dueAt - this.#options.clock.now()));
    return d;
  }

  /** Pending series and body bytes counted against an endpoint (or, as `shop <id>`, a shop's `webhook_url`s). */
  pendingOf(group: string): { count: number; bytes: number } {
    return this.#bound.of(group);
  }

  /** The oldest pending series of a full endpoint: stopped, with a delivery-log entry that says why. */
  #giveUp(d: Delivery): void {
    this.#cancel(d);
    const { clock, logger, maxPendingPerEndpoint: n, maxPendingBytesPerEndpoint: bytes } = this.#options;
    const error = `given up: pending limit reached (${n} deliveries or ${bytes} bytes per endpoint)`;
    // The attempt it will not make: a pending series has made fewer than MAX_ATTEMPTS.
    const attempt = d.attempt + 1;
    const entry = { eventId: d.event.id, event: d.event.event, attempt, status: null, error, next: null };
    this.#endpointOf(d)?.log.add({ ...entry, at: clock.now() });
    const to =
      d.endpointId === undefined ? `the webhook_url of shop ${d.event.shopId}` : `endpoint ${d.endpointId}`;
    logger?.(`webhook ${d.event.id} ${d.event.event} to ${to} ${error}`);
  }

  /**
   * The endpoint that signs `d` and whose log records it: its own, or for a `webhook_url` the shop's oldest. Looked
   * up each time, so a rotation or deletion takes effect for pending retries too.
   */
  #endpointOf(d: Delivery): Endpoint | undefined {
    const { registry } = this.#options;
    return d.endpointId === undefined ? registry.ofShop(d.event.shopId)[0] : registry.find(d.endpointId);
  }

  #cancel(d: Delivery): void {
    this.#unhold(d);
    d.cancelled = true;
    d.timer?.cancel();
    d.timer = undefined;
    if (this.#active.get(d.key) === d) this.#active.delete(d.key);
    this.#bound.remove(d.group, d);
  }

  /** A bug, not a receiver's fault (those are results): the series stops rather than retry forever. */
  #failed(d: Delivery, err: unknown): void {
    this.#cancel(d);
    this.#options.logger?.(
      `webhook ${d.event.id} stopped by an internal error: ${err instanceof Error ? err.name : 'unknown'}`,
    );
  }

  /**
   * A held series leaves the map once it is sent or stopped: the map holds only series still waiting, so it is bound
   * by the pending bound, however many endpoints or `webhook_url` origins came and went.
   */
  #unhold(d: Delivery): void {
    if (this.#held.get(d.target) === d) this.#held.delete(d.target);
  }

  async #attempt(d: Delivery): Promise<void> {
    this.#unhold(d);
    const { clock, logger } = this.#options;
    const { event } = d;
    const endpoint = this.#endpointOf(d);
    if (!endpoint) {
      if (d.endpointId === undefined)
        logger?.(
          `webhook ${event.id} ${event.event} to the payment's webhook_url stopped: the shop has no webhook endpoint left to sign with`,
        );
      this.#cancel(d);
      return;
    }
    const url = d.endpointId === undefined ? event.webhookUrl! : endpoint.url;
    d.attempt++;
    d.dueAt = null;
    const at = clock.now();
    // Whole seconds on the service clock at this attempt: a retry is signed afresh and passes a receiver's
    // freshness check. The headers are signWebhook's, so the sender and what merchants test against cannot differ.
    const headers = webhookHeaders({
      secret: endpoint.secret,
      body: event.body,
      version: endpoint.signatureVersion,
      timestamp: Math.floor(at / 1000),
      eventId: event.id,
    });
    const abort = new AbortController();
    this.#aborts.add(abort);
    const result = await post(this.#options.fetch, url, event.body, headers, abort, this.#options.deadlineMs);
    this.#aborts.delete(abort);

    let next: number | null = null;
    if (result.error === null || d.cancelled || this.#closed || d.attempt >= MAX_ATTEMPTS) {
      if (!d.cancelled) this.#cancel(d);
    } else {
      const delay = RETRY_DELAYS_MS[d.attempt - 1]!;
      next = clock.now() + delay;
      d.dueAt = next;
      d.timer = this.#retries.schedule(d, delay);
    }
    endpoint.log.add({
      eventId: event.id,
      event: event.event,
      attempt: d.attempt,
      ...result,
      at,
      next,
      ...(d.chaos ? { chaos: d.chaos } : {}),
    });
    // Chaos's duplicate: the same event, delivered once more after it was delivered (signed again at its send).
    if (result.error === null && d.duplicate && !this.#closed)
      this.#start(event, d.endpointId, 0, null, true);
    this.#releaseHeld(d);
    if (logger) {
      const target = d.endpointId === undefined ? `webhook_url of ${endpoint.id}` : `endpoint ${endpoint.id}`;
      const outcome = result.error === null ? `delivered (${result.status})` : `failed: ${result.error}`;
      const tail =
        next !== null
          ? `; retry at ${iso(next)}`
          : result.error !== null && d.attempt >= MAX_ATTEMPTS
            ? '; giving up'
            : '';
      logger(`webhook ${event.id} ${event.event} to ${target} attempt ${d.attempt} ${outcome}${tail}`);
    }
  }
}
