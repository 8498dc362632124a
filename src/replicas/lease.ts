/**
 * Event-stream leases: one holder of `client.events.stream()` among many replicas (issue 24). The service keeps
 * one stream per API key, so replicas that each opened it would replace each other; with a lease only the
 * holder connects, and when it dies another takes over within the lease time.
 */
import type { Lease } from '../client/event-stream.js';
import { type LeaseClock, type LeaseStore, leaseOver, realClock } from './lease-hold.js';
import { memoryStore } from './lease-memory.js';
import { type RedisClientLike, scriptRunner } from './redis.js';

export type { Lease } from '../client/event-stream.js';
export type { LeaseClock } from './lease-hold.js';

/** Options of {@link memoryLease} and {@link redisLease}. */
export interface LeaseOptions {
  /**
   * What is held: one name per API key whose stream the replicas share (the Redis key is
   * `psp-sdk:lease:<name>`). Default `'events'`.
   */
  name?: string | undefined;
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
  const { name = 'events', ttlMs = 10_000 } = options;
  if (typeof name !== 'string' || name === '') throw new TypeError('lease name must be a non-empty string');
  if (!Number.isInteger(ttlMs) || ttlMs < 100)
    throw new RangeError(`lease ttlMs must be an integer >= 100, got ${String(ttlMs)}`);
  return { key: `psp-sdk:lease:${name}`, ttlMs };
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
  return leaseOver(memoryStore(clock), ttlMs, options.onError, clock);
}

// Atomic on the server. Take: SET NX PX, or the holder's remaining ms. Renew and release compare the token first,
// so a holder whose lease ran out can never extend or delete its successor's.
const TAKE =
  "if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 'OK' end return redis.call('PTTL', KEYS[1])";
const RENEW =
  "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0";
const RELEASE =
  "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";

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
  const { key, ttlMs } = settings(options);
  const run = scriptRunner(client);
  const store: LeaseStore = {
    async take(token, ms) {
      const reply = await run(TAKE, [key], [token, ms]);
      return reply === 'OK' || Number(reply);
    },
    async renew(token, ms) {
      return Number(await run(RENEW, [key], [token, ms])) === 1;
    },
    release: (token) => run(RELEASE, [key], [token]),
  };
  return leaseOver(store, ttlMs, options.onError);
}
