/**
 * The one lease primitive of psp-sdk/replicas (issue 32, F1): token-guarded leases on named keys, in memory or in
 * Redis. The webhook dedupe store and the event-stream lease are both built on it. Three atomic steps:
 * - `claim` takes a free key for `ttlMs` and hands out its **fence**, a counter kept beside the key that grows with
 *   every claim of that key, so a side effect can be written "only if my fence is the newest";
 * - `extend` renews it, only for the token that holds it;
 * - `release` gives it up, only for that token, optionally leaving a done marker for `keepMs`.
 * Errors all read `psp-sdk/replicas: ...`; a reply of the wrong shape is an error, never a grant.
 */
import type { LeaseClock, LeaseStore } from './lease-hold.js';
import { type RedisClientLike, scriptRunner } from './redis.js';

/** What a claim found: the key is ours (with its fence), or held or done by someone, for `leftMs` more. */
export type Claim = { fence: number } | { fence?: undefined; done: boolean; leftMs: number };

/** Leases on named keys. Each step is atomic in the store. */
export interface LeaseKeys {
  claim(key: string, token: string, ttlMs: number): Promise<Claim>;
  extend(key: string, token: string, ttlMs: number): Promise<boolean>;
  /** Frees `key` if `token` holds it; with `keepMs`, marks it done for that long instead (claims see `done`). */
  release(key: string, token: string, keepMs?: number): Promise<boolean>;
}

/** The error of every check in psp-sdk/replicas: one prefix, no secret or reply value in it. */
export function replicasError(message: string, Kind: ErrorConstructor = Error): Error {
  return new Kind(`psp-sdk/replicas: ${message}`);
}

/** A positive integer of milliseconds, or a TypeError naming the option. */
export function positiveMs(name: string, value: unknown): number {
  if (!(Number.isSafeInteger(value) && (value as number) > 0))
    throw replicasError(`${name} must be a positive integer of milliseconds`, TypeError);
  return value as number;
}

interface Entry {
  token: string | undefined; // the holder; undefined once done or released
  done: boolean;
  until: number; // end of the lease or of the done marker
  fence: number;
  forget: number; // when the entry, fence included, may be dropped
}

/**
 * Leases in this process's memory, on `clock`. Bounded by `maxEntries`: expired entries go first, then the oldest
 * entries nobody holds; when every entry is held, `claim` throws. A fence is kept `fenceMs` past its last claim.
 */
export function memoryLeaseKeys(
  clock: LeaseClock,
  options: { fenceMs: number; maxEntries?: number | undefined },
): LeaseKeys {
  const { fenceMs, maxEntries = 100_000 } = options;
  if (!(Number.isSafeInteger(maxEntries) && maxEntries > 0))
    throw replicasError('maxEntries must be a positive integer', TypeError);
  // Insertion order is kept: an entry is re-inserted when it changes, so the oldest sit first.
  const entries = new Map<string, Entry>();
  let sweptAt = Number.NEGATIVE_INFINITY;
  const entry = (key: string, t: number) => {
    const e = entries.get(key);
    if (e && e.forget <= t) entries.delete(key);
    return e && e.forget > t ? e : undefined;
  };
  const held = (e: Entry | undefined, token: string, t: number): e is Entry =>
    e !== undefined && !e.done && e.token === token && e.until > t;
  const put = (key: string, e: Entry) => {
    entries.delete(key);
    entries.set(key, e);
  };
  // A full pass at most once a second of clock time, or when full: O(1) per call on average.
  const makeRoom = (t: number) => {
    if (t - sweptAt < 1000 && entries.size < maxEntries) return;
    sweptAt = t;
    for (const [k, e] of entries) if (e.forget <= t) entries.delete(k);
    if (entries.size < maxEntries) return;
    // Full: forget the oldest entries nobody holds, down to 90% so the next calls do not pass again.
    for (const [k, e] of entries) {
      if (entries.size < maxEntries * 0.9) break;
      if (e.done || e.until <= t) entries.delete(k);
    }
    if (entries.size >= maxEntries)
      throw replicasError(`memory store holds ${maxEntries} leases (maxEntries)`);
  };
  return {
    async claim(key, token, ttlMs) {
      const t = clock.now();
      const e = entry(key, t);
      if (e && e.until > t) return { done: e.done, leftMs: e.until - t };
      if (!e) makeRoom(t);
      const fence = (e?.fence ?? 0) + 1;
      put(key, { token, done: false, until: t + ttlMs, fence, forget: t + Math.max(ttlMs, fenceMs) });
      return { fence };
    },
    async extend(key, token, ttlMs) {
      const t = clock.now();
      const e = entry(key, t);
      if (!held(e, token, t)) return false;
      e.until = t + ttlMs;
      e.forget = Math.max(e.forget, e.until);
      return true;
    },
    async release(key, token, keepMs) {
      const t = clock.now();
      const e = entry(key, t);
      if (!held(e, token, t)) return false;
      const until = keepMs ? t + keepMs : t;
      put(key, {
        token: undefined,
        done: Boolean(keepMs),
        until,
        fence: e.fence,
        forget: Math.max(e.forget, until),
      });
      return true;
    },
  };
}

// One key per lease, `r:<token>` while held and `done` after, with its fence at `<key>:fence`. Each script is one
// atomic step on the server: two claimants never both see the key free, and only the holder extends or frees it.
// A fence key lives at least as long as its lease or done marker (ARGV's fence ms at the least).
const CLAIM = `if redis.call('SET', KEYS[1], 'r:' .. ARGV[1], 'NX', 'PX', ARGV[2]) then
  local f = redis.call('INCR', KEYS[2])
  if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[2], ARGV[3]) end
  return {1, f} end
local left = redis.call('PTTL', KEYS[1])
if redis.call('GET', KEYS[1]) == 'done' then return {2, left} end
return {3, left}`;
const EXTEND = `if redis.call('GET', KEYS[1]) ~= 'r:' .. ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
return 1`;
const RELEASE = `if redis.call('GET', KEYS[1]) ~= 'r:' .. ARGV[1] then return 0 end
if ARGV[2] == '0' then redis.call('DEL', KEYS[1]) return 1 end
redis.call('SET', KEYS[1], 'done', 'PX', ARGV[2])
if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
return 1`;

const shapeOf = (v: unknown) => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);

/** A 0 or 1 integer reply; anything else (a string `"1"`, an array) is an error, never a grant. */
function flag(step: string, reply: unknown): boolean {
  if (reply === 0 || reply === 1) return reply === 1;
  throw replicasError(`unexpected reply to ${step} (${shapeOf(reply)}): is this a Redis server?`);
}

/**
 * Leases in Redis under `prefix`, shared by every process on the same Redis. A fence key lives `fenceMs` at
 * least; a Redis that restarts without persistence forgets it, and the next claim's fence is 1 again.
 */
export function redisLeaseKeys(
  client: RedisClientLike,
  options: { prefix: string; fenceMs: number },
): LeaseKeys {
  const run = scriptRunner(client);
  const { prefix, fenceMs } = options;
  if (typeof prefix !== 'string') throw replicasError('prefix must be a string', TypeError);
  const keys = (key: string) => [prefix + key, `${prefix + key}:fence`];
  return {
    async claim(key, token, ttlMs) {
      const reply = await run(CLAIM, keys(key), [token, ttlMs, Math.max(ttlMs, fenceMs)]);
      const [kind, n] = Array.isArray(reply) && reply.length === 2 ? reply : [];
      if (!(isInt(kind) && isInt(n) && kind >= 1 && kind <= 3))
        throw replicasError(`unexpected reply to claim (${shapeOf(reply)}): is this a Redis server?`);
      if (kind === 1) {
        if (n < 1) throw replicasError('unexpected fence in the reply to claim');
        return { fence: n };
      }
      // PTTL is -1 for a key without expiry (never written by this module) and -2 for one gone meanwhile.
      return { done: kind === 2, leftMs: Math.max(n, 0) };
    },
    async extend(key, token, ttlMs) {
      return flag('extend', await run(EXTEND, keys(key), [token, ttlMs]));
    },
    async release(key, token, keepMs) {
      return flag('release', await run(RELEASE, keys(key), [token, keepMs ?? 0]));
    },
  };
}

/** One key of `keys` as the store of a single lease (the event stream's): a claim is `true` or the ms left. */
export function oneKey(keys: LeaseKeys, key: string): LeaseStore {
  return {
    async take(token, ttlMs) {
      const c = await keys.claim(key, token, ttlMs);
      return c.fence !== undefined || c.leftMs;
    },
    renew: (token, ttlMs) => keys.extend(key, token, ttlMs),
    release: (token) => keys.release(key, token),
  };
}
