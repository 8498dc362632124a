/**
 * Webhook dedupe stores (issue 24, point 1). The seam is `WebhookDedupe` (src/webhooks/once.ts), three atomic
 * steps around a handler run: `begin` takes a lease on an event id, `finish` turns the lease into a done marker,
 * `abandon` drops it so a later delivery runs the handler. Each step after `begin` carries the token `begin`
 * handed out, so a replica whose lease ran out cannot mark done (or free) an event another replica now runs.
 */
import type { WebhookDedupe } from '../webhooks/once.js';
import { type RedisClientLike, scriptRunner } from './redis.js';

export type { DedupeBegin, WebhookDedupe } from '../webhooks/once.js';

/**
 * Options of {@link memoryDedupe} and {@link redisDedupe}.
 */
export interface DedupeOptions {
  /**
   * How long a replica holds an event while its handler runs, in milliseconds. Past it, a replica that died
   * mid-handler no longer blocks the event: the next delivery runs it. Set it above your handler's longest run
   * (a handler still running when its lease ends may overlap with a redelivery). Default 60 000 (the service
   * waits 15 s for an answer and retries 10 s later, which then meets the lease and answers 409).
   */
  leaseMs?: number | undefined;
  /**
   * How long a handled event is remembered, in milliseconds: deliveries of its id within it answer 2xx without
   * running the handler. Default 7 days: longer than the service's whole retry schedule (spec 6.1: eight
   * attempts over about 3.4 days) with room for a resend from the cabinet in the same week.
   */
  keepMs?: number | undefined;
}

/** Default lease: 60 s. */
const DEFAULT_LEASE_MS = 60_000;
/** Default keep window: 7 days. */
const DEFAULT_KEEP_MS = 7 * 24 * 60 * 60 * 1000;

function durations(options: DedupeOptions): { leaseMs: number; keepMs: number } {
  const { leaseMs = DEFAULT_LEASE_MS, keepMs = DEFAULT_KEEP_MS } = options;
  for (const [name, v] of [
    ['leaseMs', leaseMs],
    ['keepMs', keepMs],
  ] as const) {
    if (!(Number.isSafeInteger(v) && v > 0))
      throw new TypeError(`psp-sdk/replicas: ${name} must be a positive integer of milliseconds`);
  }
  return { leaseMs, keepMs };
}

const newToken = () => crypto.randomUUID();

/** Options of {@link memoryDedupe}. */
export interface MemoryDedupeOptions extends DedupeOptions {
  /**
   * Most event ids held at once. Expired entries are dropped first; past the cap, the oldest done markers are
   * forgotten (a redelivery of one of those runs its handler again), and when every entry is a running lease,
   * `begin` throws, so the handler answers 503 and the service retries later. Default 100 000 (about 15 MB).
   */
  maxEntries?: number | undefined;
  /** The clock, in epoch milliseconds. Default `Date.now`; tests pass a fake one. */
  now?: (() => number) | undefined;
}

interface Entry {
  token: string | undefined; // undefined once done
  until: number;
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
  const { leaseMs, keepMs } = durations(options);
  const { maxEntries = 100_000, now = Date.now } = options;
  if (!(Number.isSafeInteger(maxEntries) && maxEntries > 0))
    throw new TypeError('psp-sdk/replicas: maxEntries must be a positive integer');
  // Insertion order is kept: an entry is re-inserted when it changes, so done markers sit in finish order.
  const entries = new Map<string, Entry>();
  let sweptAt = Number.NEGATIVE_INFINITY;

  const live = (id: string, t: number) => {
    const e = entries.get(id);
    if (e && e.until <= t) entries.delete(id);
    return e && e.until > t ? e : undefined;
  };
  // A full pass at most once a second of clock time, or when full: the cost stays O(1) per call on average.
  const makeRoom = (t: number) => {
    if (t - sweptAt < 1000 && entries.size < maxEntries) return;
    sweptAt = t;
    for (const [id, e] of entries) if (e.until <= t) entries.delete(id);
    if (entries.size < maxEntries) return;
    // Full of live entries: forget the oldest done markers, down to 90% so the next calls do not pass again.
    for (const [id, e] of entries) {
      if (entries.size < maxEntries * 0.9) break;
      if (e.token === undefined) entries.delete(id);
    }
    if (entries.size >= maxEntries)
      throw new Error(`psp-sdk/replicas: memoryDedupe holds ${maxEntries} running events (maxEntries)`);
  };
  const held = (id: string, token: string, t: number) => {
    const e = live(id, t);
    return e !== undefined && e.token === token;
  };

  return {
    async begin(eventId) {
      const t = now();
      const e = live(eventId, t);
      if (e) return { state: e.token === undefined ? 'done' : 'running' };
      makeRoom(t);
      const token = newToken();
      entries.set(eventId, { token, until: t + leaseMs });
      return { state: 'started', token };
    },
    async finish(eventId, token) {
      const t = now();
      if (!held(eventId, token, t)) return false;
      entries.delete(eventId);
      entries.set(eventId, { token: undefined, until: t + keepMs });
      return true;
    },
    async abandon(eventId, token) {
      if (!held(eventId, token, now())) return false;
      entries.delete(eventId);
      return true;
    },
  };
}

/** Options of {@link redisDedupe}. */
export interface RedisDedupeOptions extends DedupeOptions {
  /** Prefix of the keys, one key per event id. Default `'psp:webhook:'`. */
  prefix?: string | undefined;
}

// One key per event: `r:<token>` while a replica runs it (PX leaseMs), `done` after (PX keepMs). Each script is
// one atomic step on the server, so two replicas can never both see the key free.
const BEGIN = `if redis.call('SET', KEYS[1], 'r:' .. ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('GET', KEYS[1]) == 'done' then return 2 end
return 3`;
const FINISH = `if redis.call('GET', KEYS[1]) == 'r:' .. ARGV[1] then
  redis.call('SET', KEYS[1], 'done', 'PX', ARGV[2]) return 1 end
return 0`;
const ABANDON = `if redis.call('GET', KEYS[1]) == 'r:' .. ARGV[1] then redis.call('DEL', KEYS[1]) return 1 end
return 0`;

/**
 * A dedupe store on Redis, shared by every replica that talks to the same Redis: the handler of an event runs
 * at most once at a time across all of them, and not again within `keepMs` once it succeeded. Takes a connected
 * node-redis (`redis` 4-6) or ioredis client as it is; psp-sdk depends on neither. Every step is one EVAL.
 *
 * Redis without persistence forgets the done markers when it restarts: a redelivery after that runs the handler
 * again. Run it with `appendonly yes` (docs/replicas.md).
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
  const run = scriptRunner(client);
  const { leaseMs, keepMs } = durations(options);
  const { prefix = 'psp:webhook:' } = options;
  if (typeof prefix !== 'string') throw new TypeError('psp-sdk/replicas: prefix must be a string');
  const key = (eventId: string) => [prefix + eventId];
  return {
    async begin(eventId) {
      const token = newToken();
      const r = Number(await run(BEGIN, key(eventId), [token, leaseMs]));
      return r === 1 ? { state: 'started', token } : { state: r === 2 ? 'done' : 'running' };
    },
    async finish(eventId, token) {
      return Number(await run(FINISH, key(eventId), [token, keepMs])) === 1;
    },
    async abandon(eventId, token) {
      return Number(await run(ABANDON, key(eventId), [token])) === 1;
    },
  };
}
