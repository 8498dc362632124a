/**
 * Event-stream leases: one holder of `client.events.stream()` among many replicas (issue 24). The service keeps
 * one stream per API key, so replicas that each opened it would replace each other; with a lease only the
 * holder connects, and when it dies another takes over within the lease time.
 */
import type { Lease } from '../client/event-stream.js';
import { type LeaseClock, leaseOver, realClock } from './lease-hold.js';
import { memoryLeaseKeys, oneKey, redisLeaseKeys, replicasError } from './lease-keys.js';
import type { RedisClientLike } from './redis.js';

export type { Lease } from '../client/event-stream.js';
export type { LeaseClock } from './lease-hold.js';

/** Options of {@link memoryLease} and {@link redisLease}. */
export interface LeaseOptions {
  /**
   * What is held: one name per API key whose stream the replicas share (the Redis key is `<prefix><name>`).
   * Default `'events'`.
   */
  name?: string | undefined;
  /**
   * Prefix of the Redis keys (the lease at `<prefix><name>`, its fence at `<prefix><name>:fence`). Default
   * `'psp-sdk:lease:'`; memory leases ignore it.
   *
   * @example
   * redisLease(redis, { prefix: 'shop-a:lease:' })
   */
  prefix?: string | undefined;
  /**
   * The lease time, in ms (an integer of at least 100): a dead holder is replaced within about this long. The
   * holder renews every third of it, and closes its stream once four fifths have passed without a confirmed
   * renewal. Default 10 000.
   */
  ttlMs?: number | undefined;
  /** Called with each error of the store (unreachable, refused): the lease is then lost, or not taken. Default none. */
  onError?: ((error: unknown) => void) | undefined;
}

/** Options of {@link memoryLease}. */
export interface MemoryLeaseOptions extends LeaseOptions {
  /**
   * The time the lease and its timers follow. Default: real time (`performance.now()`, `setTimeout`). For tests:
   * the reference's `ManualClock` (or `ref.clock` of a reference on the manual clock) fits, so the lease moves
   * only when the test advances it.
   */
  clock?: LeaseClock | undefined;
}

function settings(options: LeaseOptions) {
  const { name = 'events', ttlMs = 10_000, prefix = 'psp-sdk:lease:' } = options;
  if (typeof name !== 'string' || name === '')
    throw replicasError('lease name must be a non-empty string', TypeError);
  if (typeof prefix !== 'string') throw replicasError('prefix must be a string', TypeError);
  if (!Number.isInteger(ttlMs) || ttlMs < 100)
    throw replicasError(`lease ttlMs must be an integer >= 100, got ${String(ttlMs)}`, RangeError);
  return { name, prefix, ttlMs };
}

/**
 * A lease held in this process's memory: for one process running several streams (a worker pool), and for tests.
 * Each call makes a lease of its own (`name` only matters for Redis).
 *
 * @example
 * import { PspClient } from 'psp-sdk';
 * import { memoryLease } from 'psp-sdk/replicas';
 *
 * const lease = memoryLease({ ttlMs: 5_000 });
 * const client = new PspClient();
 * // Only one of the two ever holds the connection; the other takes over when it closes.
 * const a = client.events.stream({ lease });
 * const b = client.events.stream({ lease });
 */
export function memoryLease(options: MemoryLeaseOptions = {}): Lease {
  const { ttlMs } = settings(options);
  const clock = options.clock ?? realClock;
  return leaseOver(
    oneKey(memoryLeaseKeys(clock, { fenceMs: ttlMs }), 'lease'),
    ttlMs,
    options.onError,
    clock,
  );
}

/**
 * A lease held in Redis, shared by every replica that uses the same Redis and `name`. Takes a connected
 * node-redis (`redis` 4-6) or ioredis client as it is; psp-sdk sends it EVAL commands only. The lease time runs
 * on the Redis server; the holder counts its own deadline from before each renewal was sent.
 *
 * @example
 * import { createClient } from 'redis';
 * import { PspClient } from 'psp-sdk';
 * import { redisLease } from 'psp-sdk/replicas';
 *
 * const redis = await createClient({ url: process.env.REDIS_URL }).connect();
 * const client = new PspClient();
 * for await (const event of client.events.stream({ lease: redisLease(redis, { ttlMs: 10_000 }) })) {
 *   console.log(event.kind); // only on the replica that holds the lease
 * }
 */
export function redisLease(client: RedisClientLike, options: LeaseOptions = {}): Lease {
  const { name, prefix, ttlMs } = settings(options);
  // The same keyed leases as the webhook dedupe store: a claim, renewals and a release, each token-guarded.
  return leaseOver(oneKey(redisLeaseKeys(client, { prefix, fenceMs: ttlMs }), name), ttlMs, options.onError);
}
