/**
 * Webhook dedupe stores (issue 24, point 1; issue 32, F1). The seam is `WebhookDedupe` (src/webhooks/once.ts),
 * three atomic steps around a handler run: `begin` takes a lease on an event id, `finish` turns the lease into a
 * done marker, `abandon` drops it so a later delivery runs the handler. Each step after `begin` carries the token
 * `begin` handed out, so a replica whose lease ran out cannot mark done (or free) an event another replica now
 * runs. The lease is the keyed lease of lease-keys.ts, renewed while the handler runs (lease-hold.ts), and `begin`
 * hands out its fence and a signal that aborts when the lease is lost.
 */
import type { DedupeBegin, WebhookDedupe } from '../webhooks/once.js';
import { type Hold, holdLease, holdTimes, type LeaseClock, realClock } from './lease-hold.js';
import { type LeaseKeys, memoryLeaseKeys, positiveMs, redisLeaseKeys, replicasError } from './lease-keys.js';
import type { RedisClientLike } from './redis.js';

export type { DedupeBegin, WebhookDedupe } from '../webhooks/once.js';

/**
 * Options of {@link memoryDedupe} and {@link redisDedupe}.
 */
export interface DedupeOptions {
  /**
   * The lease on an event while its handler runs, in milliseconds. The replica renews it every third of it while
   * the handler runs; one that dies (or stops renewing) no longer blocks the event once it runs out, and the next
   * delivery runs it. A replica that cannot renew in time (paused, cut off from the store) is told through the
   * handler's `signal` four fifths into the lease, before anyone else can take it. Default 60 000.
   */
  leaseMs?: number | undefined;
  /**
   * How long a handled event is remembered, in milliseconds: deliveries of its id within it answer 2xx without
   * running the handler. Default 7 days: longer than the service's whole retry schedule (spec 6.1: eight
   * attempts over about 3.4 days) with room for a resend from the cabinet in the same week.
   */
  keepMs?: number | undefined;
  /**
   * The time the leases and their renewals follow. Default: real time (`performance.now()`, monotonic, and
   * `setTimeout`). Tests pass a fake one (the reference's `ManualClock` fits).
   */
  clock?: LeaseClock | undefined;
}

/** Default lease: 60 s. */
const DEFAULT_LEASE_MS = 60_000;
/** Default keep window: 7 days. */
const DEFAULT_KEEP_MS = 7 * 24 * 60 * 60 * 1000;

function durations(options: DedupeOptions): { leaseMs: number; keepMs: number } {
  const { leaseMs = DEFAULT_LEASE_MS, keepMs = DEFAULT_KEEP_MS } = options;
  // A lease is renewed every third of it: below 100 ms that is a loop of store calls, not a lease.
  if (positiveMs('leaseMs', leaseMs) < 100) throw replicasError('leaseMs must be at least 100', RangeError);
  return { leaseMs, keepMs: positiveMs('keepMs', keepMs) };
}

/**
 * The dedupe rule over keyed leases: `begin` claims the event id and holds the claim, renewed, until `finish` or
 * `abandon`; both are refused (false) by the store once the token no longer holds the key.
 */
function dedupeOver(keys: LeaseKeys, options: DedupeOptions, clock: LeaseClock): WebhookDedupe {
  const { leaseMs, keepMs } = durations(options);
  const { life } = holdTimes(leaseMs);
  const holds = new Map<string, Hold>();
  // Stops renewing. Whether the step then succeeds is the store's call: its token check passes only while no
  // other replica can have begun the event, even after this one's signal aborted (a late renewal, a pause).
  const endHold = (token: string) => {
    holds.get(token)?.end();
    holds.delete(token);
  };
  return {
    async begin(eventId): Promise<DedupeBegin> {
      const token = crypto.randomUUID();
      const sentAt = clock.now();
      const c = await keys.claim(eventId, token, leaseMs);
      if (c.fence === undefined) return { state: c.done ? 'done' : 'running' };
      if (clock.now() - sentAt >= life) {
        // Granted too late to hold it safely: give it back, and the caller answers 503.
        await keys.release(eventId, token);
        throw new Error(
          `psp-sdk/replicas: the store granted the lease after ${life} ms, too late to hold it`,
        );
      }
      const hold = holdLease(() => keys.extend(eventId, token, leaseMs), leaseMs, sentAt, clock);
      holds.set(token, hold);
      hold.lost.addEventListener('abort', () => holds.delete(token), { once: true });
      return { state: 'started', token, fence: c.fence, signal: hold.lost };
    },
    async finish(eventId, token) {
      endHold(token);
      return keys.release(eventId, token, keepMs);
    },
    async abandon(eventId, token) {
      endHold(token);
      return keys.release(eventId, token);
    },
  };
}

/** Options of {@link memoryDedupe}. */
export interface MemoryDedupeOptions extends DedupeOptions {
  /**
   * Most event ids held at once. Expired entries are dropped first; past the cap, the oldest done markers are
   * forgotten (a redelivery of one of those runs its handler again), and when every entry is a running lease,
   * `begin` throws, so the handler answers 503 and the service retries later. Default 100 000 (about 15 MB).
   */
  maxEntries?: number | undefined;
}

/**
 * A dedupe store in this process's memory: right for one process (a single server, tests), wrong for several
 * replicas, which each have their own memory (use {@link redisDedupe}). Bounded: see `maxEntries`.
 *
 * @example
 * import { createWebhookHandler } from 'psp-sdk/webhooks';
 * import { memoryDedupe } from 'psp-sdk/replicas';
 * const handle = createWebhookHandler({ secret, dedupe: memoryDedupe(), on: { 'payment.succeeded': fulfil } });
 */
export function memoryDedupe(options: MemoryDedupeOptions = {}): WebhookDedupe {
  const clock = options.clock ?? realClock;
  const { keepMs } = durations(options);
  const keys = memoryLeaseKeys(clock, { fenceMs: keepMs, maxEntries: options.maxEntries ?? 100_000 });
  return dedupeOver(keys, options, clock);
}

/** Options of {@link redisDedupe}. */
export interface RedisDedupeOptions extends DedupeOptions {
  /**
   * Prefix of the keys: an event's lease or done marker at `<prefix><app>:<event id>` and its fence beside it,
   * at `...:fence` (`<app>` is the handler's `app`, by default a digest of the endpoint's secret). Default
   * `'psp:webhook:'`.
   *
   * @example
   * redisDedupe(redis, { prefix: 'fulfilment:webhook:' })
   */
  prefix?: string | undefined;
}

/**
 * A dedupe store on Redis, shared by every replica that talks to the same Redis: at most one replica runs an
 * event's handler while it holds a live lease (renewed while the handler runs), and not again within `keepMs`
 * once it succeeded. The handler gets a `signal` that aborts if the lease is lost and a `fence` that grows with
 * every run of the event, to refuse a late write (docs/replicas.md). Takes a connected node-redis (`redis` 4-6)
 * or ioredis client of one Redis server (not a cluster client) as it is; psp-sdk depends on neither. Every step
 * is one EVAL.
 *
 * Redis without persistence forgets the done markers and fences when it restarts: a redelivery after that runs
 * the handler again, with a fence counted from 1 again. Run it with `appendonly yes` (docs/replicas.md).
 *
 * @example
 * import { createClient } from 'redis';
 * import { createWebhookHandler } from 'psp-sdk/webhooks';
 * import { redisDedupe } from 'psp-sdk/replicas';
 * const redis = createClient({ url: process.env.REDIS_URL, disableOfflineQueue: true }); // fail fast: 503
 * redis.on('error', (e) => console.error('redis:', e.message)); // without it an outage ends the process
 * await redis.connect();
 * const handle = createWebhookHandler({ secret, dedupe: redisDedupe(redis), on: { 'payment.succeeded': fulfil } });
 */
export function redisDedupe(client: RedisClientLike, options: RedisDedupeOptions = {}): WebhookDedupe {
  const { prefix = 'psp:webhook:' } = options;
  const { keepMs } = durations(options);
  const keys = redisLeaseKeys(client, { prefix, fenceMs: keepMs });
  return dedupeOver(keys, options, options.clock ?? realClock);
}
