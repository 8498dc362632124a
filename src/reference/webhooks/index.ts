import { CODE } from '../../schemas/errors.js';
import type { Clock } from '../domain/clock.js';
import { refuse } from '../domain/errors.js';
import type { EventBus } from '../domain/events.js';
import { type ChaosMerchants, WebhookChaos } from './chaos.js';
import { Dispatcher, type PendingSeries } from './dispatcher.js';
import { type CreatedEndpoint, EndpointRegistry, type EndpointState, newWebhookSecret } from './endpoints.js';
import { toOutgoingWebhook, type OutgoingWebhook } from './events.js';
import { EventHistory } from './history.js';
import type { DeliveryAttempt } from './log.js';
import { limit } from '../util/limit.js';

export { MAX_ATTEMPTS } from './retries.js';
export type { OutgoingWebhook };

/** What a snapshot keeps of the webhook service: endpoints with their logs, events kept for resend, pending series. */
export interface WebhookState {
  endpoints: EndpointState[];
  events: OutgoingWebhook[];
  pending: PendingSeries[];
}

/** What the webhook service needs from the reference. */
export interface WebhookServiceDeps {
  /** Domain events to turn into webhooks. */
  bus: EventBus;
  /** The service clock: retry delays, `created_at`, v2 timestamps and delivery-log times follow it. */
  clock: Clock;
  /**
   * What sends the POSTs. Default: `globalThis.fetch`, looked up at each attempt (so a fetch that msw or a test
   * installs later is the one used).
   */
  fetch?: typeof fetch | undefined;
  /** A line per attempt and per event that cannot be delivered. Default: silent. Never given a secret. */
  logger?: ((line: string) => void) | undefined;
  /** Most POSTs in flight at once; the rest wait in a queue. Default: 64. */
  maxInFlight?: number | undefined;
  /**
   * Most POSTs in flight to one endpoint (or one `webhook_url` origin), so receivers that hang cannot hold every
   * slot and delay everyone else. Default: a quarter of `maxInFlight` (16).
   */
  maxInFlightPerEndpoint?: number | undefined;
  /** Real-time answer deadline of one attempt, in ms. Default: 15 000 (spec 8). */
  deadlineMs?: number | undefined;
  /** Attempts kept in each endpoint's delivery log (the newest). Default: 1 000. */
  logLimit?: number | undefined;
  /**
   * Most events kept for manual resend (the newest; only events that had a target when they were made). Default:
   * 10 000.
   */
  historyLimit?: number | undefined;
  /** Most bytes of event bodies kept for manual resend (the newest). Default: 16 MiB (16 777 216). */
  historyBytes?: number | undefined;
  /**
   * Most pending delivery series per endpoint (queued, in flight or waiting for a retry; a shop's `webhook_url`
   * deliveries count together as one more). The oldest is given up, with a delivery-log entry saying so. Default:
   * 10 000.
   */
  maxPendingPerEndpoint?: number | undefined;
  /** Most bytes of event bodies the pending series of one endpoint keep alive; the oldest is given up. Default: 16 MiB. */
  maxPendingBytesPerEndpoint?: number | undefined;
  /**
   * The secret a new endpoint of `shopId` gets instead of a random one (a configured `webhookSecret`), or
   * undefined. Rotation always makes a random one. Default: none.
   */
  fixedSecret?: ((shopId: string) => string | undefined) | undefined;
  /** Webhook chaos in force from the start (`PUT /_simulator/webhook-chaos` changes it later). Default: off. */
  chaos?: unknown;
  /** The merchants, for chaos set by one merchant alone. Default: none (chaos is the same for every merchant). */
  merchants?: ChaosMerchants | undefined;
}

/** The reference's webhook sender: endpoints per shop, signed delivery with retries, the log and resend. */
export interface WebhookService {
  /** Validates `{ url, events?, signature_version? }` and answers with the secret, shown this once. DomainError 400 `bad_request`. */
  createEndpoint(shopId: string, input: unknown): CreatedEndpoint;
  /** A new secret; the old one stops at once, for retries already pending too. DomainError 404 `not_found`. */
  rotateSecret(endpointId: string): { secret: string };
  /** Stops delivery to the endpoint, pending retries included. DomainError 404 `not_found`. */
  deleteEndpoint(endpointId: string): void;
  /** The endpoint's newest attempts (up to `logLimit`), oldest first. DomainError 404 `not_found`. */
  deliveries(endpointId: string): DeliveryAttempt[];
  /** Every live endpoint's kept attempts, each with its endpoint, in the order they were made. */
  allDeliveries(): Array<DeliveryAttempt & { endpoint_id: string }>;
  /**
   * Delivers the event again, same `evt_` id and body, as a fresh series of up to 9 attempts to every target that
   * takes it now (a pending series to the same target is replaced, not doubled). DomainError 404 `not_found` for an
   * id the service never made, made for no target (never kept), or no longer keeps (past `historyBytes` or
   * `historyLimit`).
   */
  resend(eventId: string): void;
  /** The shop that owns an endpoint, for the cabinet's authorisation checks; undefined when there is none. */
  endpointShop(endpointId: string): string | undefined;
  /** The shop of a kept event; undefined when there is none. */
  eventShop(eventId: string): string | undefined;
  /** Resolves once no attempt is queued or in flight (retries waiting on the clock do not count). For tests. */
  idle(): Promise<void>;
  /**
   * Counters for diagnostics, tests and benchmarks: pending series, attempts in flight, events kept for resend and
   * the bytes of their bodies.
   */
  stats(): { pending: number; inFlight: number; events: number; eventBytes: number };
  /**
   * Pending series counted against an endpoint id (or `shop <shop_id>` for that shop's `webhook_url` deliveries),
   * and the bytes of their bodies. For tests of the bound.
   */
  pendingOf(group: string): { count: number; bytes: number };
  /** The whole state, for a snapshot (secrets included). @internal */
  exportState(): WebhookState;
  /** Replaces the whole state with a snapshot's (already checked): retries are re-armed on the clock. @internal */
  importState(state: WebhookState): void;
  /** Webhook chaos: puts a configuration in force (DomainError 400 naming a bad field), reads it, turns it off. */
  readonly chaos: WebhookChaos;
  /** Unsubscribes, cancels retry timers, aborts attempts in flight and waits for them to settle. */
  close(): Promise<void>;
}

// Over 80 lines: the service object: its methods are one-liners over the registry, history and dispatcher.
/**
 * Creates the webhook service and subscribes it to `bus`. The bus listener only queues work, so publishing an event
 * never waits for a receiver.
 *
 * A payment with `webhook_url` sends its events there instead of to the shop's endpoints, signed with the secret and
 * signature version of the shop's oldest endpoint (looked up at each attempt, so rotation and deletion apply); the
 * endpoints' event filters do not apply to it, and its attempts appear in that endpoint's delivery log. With no
 * endpoint in the shop, nothing can sign it: it is not sent, and the logger says why.
 *
 * @example
 * ```ts
 * const webhooks = createWebhookService({ bus, clock: new ManualClock() });
 * const { id, secret } = webhooks.createEndpoint(shopId, { url: 'https://shop.example/hooks', events: ['payment.succeeded'] });
 * // ... a payment succeeds: one signed POST to the endpoint, retried on failure
 * webhooks.deliveries(id); // [{ event_id: 'evt_...', attempt: 1, status_code: 200, ... }]
 * ```
 */
export function createWebhookService(deps: WebhookServiceDeps): WebhookService {
  const registry = new EndpointRegistry(limit('logLimit', deps.logLimit, 1_000));
  const history = new EventHistory(
    limit('historyBytes', deps.historyBytes, 16 * 1024 * 1024),
    limit('historyLimit', deps.historyLimit, 10_000),
  );
  const maxInFlight = limit('maxInFlight', deps.maxInFlight, 64);
  const userLogger = deps.logger;
  // A logger that throws must not break delivery (or reject into nowhere from a background attempt).
  const logger =
    userLogger &&
    ((line: string) => {
      try {
        userLogger(line);
      } catch {}
    });
  const chaos = new WebhookChaos(deps.merchants);
  if (deps.chaos !== undefined) chaos.set(deps.chaos);
  const dispatcher = new Dispatcher({
    chaos,
    clock: deps.clock,
    fetch: deps.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    registry,
    logger,
    maxInFlight,
    maxInFlightPerTarget: limit(
      'maxInFlightPerEndpoint',
      deps.maxInFlightPerEndpoint,
      Math.max(1, Math.ceil(maxInFlight / 4)),
    ),
    deadlineMs: limit('deadlineMs', deps.deadlineMs, 15_000),
    maxPendingPerEndpoint: limit('maxPendingPerEndpoint', deps.maxPendingPerEndpoint, 10_000),
    maxPendingBytesPerEndpoint: limit(
      'maxPendingBytesPerEndpoint',
      deps.maxPendingBytesPerEndpoint,
      16 * 1024 * 1024,
    ),
  });

  const unsubscribe = deps.bus.subscribe((domainEvent) => {
    const event = toOutgoingWebhook(domainEvent);
    if (!event) return;
    // Kept for resend only when it went somewhere: an event no endpoint took has an id no one was ever shown
    // (no delivery log lists it), so a resend could never name it.
    if (dispatcher.dispatch(event) > 0) history.add(event);
  });

  return {
    chaos,
    createEndpoint(shopId, input) {
      const { id, url, events, signatureVersion, secret } = registry.create(
        shopId,
        input,
        deps.fixedSecret?.(shopId),
      );
      return { id, url, events: [...events], signature_version: signatureVersion, secret };
    },
    rotateSecret(endpointId) {
      const endpoint = registry.get(endpointId);
      endpoint.secret = newWebhookSecret();
      return { secret: endpoint.secret };
    },
    deleteEndpoint(endpointId) {
      registry.delete(endpointId);
      dispatcher.dropEndpoint(endpointId);
    },
    allDeliveries() {
      return registry
        .all()
        .flatMap((e) => e.log.list().map((d) => ({ ...d, endpoint_id: e.id })))
        .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
    },
    deliveries(endpointId) {
      return registry.get(endpointId).log.list();
    },
    resend(eventId) {
      const event = history.get(eventId);
      if (!event)
        throw refuse(CODE.not_found, `No event ${JSON.stringify(eventId.slice(0, 100))} to resend.`);
      if (dispatcher.dispatch(event) === 0)
        logger?.(`webhook ${event.id} ${event.event} resend: no endpoint of the shop takes it now`);
    },
    endpointShop(endpointId) {
      return registry.find(endpointId)?.shopId;
    },
    eventShop(eventId) {
      return history.get(eventId)?.shopId;
    },
    idle: () => dispatcher.idle(),
    stats: () => ({
      pending: dispatcher.pending,
      inFlight: dispatcher.inFlight,
      events: history.size,
      eventBytes: history.bytes,
    }),
    pendingOf: (group) => dispatcher.pendingOf(group),
    exportState: () => ({
      endpoints: registry.all().map(({ log, ...e }) => ({ ...e, attempts: log.records() })),
      events: history.all(),
      pending: dispatcher.series(),
    }),
    importState(state) {
      dispatcher.replaceSeries([]);
      registry.replace(state.endpoints);
      history.clear();
      for (const event of state.events) history.add(event);
      dispatcher.replaceSeries(state.pending);
    },
    async close() {
      unsubscribe();
      await dispatcher.close();
    },
  };
}
