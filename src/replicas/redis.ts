/**
 * The one way this package talks to Redis: a Lua script run with EVAL, atomically on the server. Every store in
 * `psp-sdk/replicas` is a few such scripts, so the only thing asked of the merchant's client is to send a raw
 * command. Both clients merchants run are taken as they are, structurally, with no runtime dependency on either:
 * - ioredis (4-6): `client.call('EVAL', script, numkeys, ...keys, ...args)`;
 * - node-redis (`redis` 4-6): `client.sendCommand(['EVAL', script, numkeys, ...keys, ...args])`.
 * A client of neither shape is refused at construction, not at the first delivery, and so is a cluster client
 * (node-redis `createCluster()`, ioredis `new Cluster()`): a lease and its fence are two keys in one script, which a
 * cluster would route by slot, and node-redis's cluster `sendCommand` takes other arguments.
 */

/** An ioredis client (`new Redis(...)`), or anything with its `call` method. */
export interface IoRedisLike {
  call(command: string, ...args: (string | number)[]): Promise<unknown>;
}

/** A node-redis client (`createClient(...)` of `redis` 4-6), or anything with its `sendCommand` method. */
export interface NodeRedisLike {
  sendCommand(args: string[]): Promise<unknown>;
}

/**
 * A connected Redis client: node-redis (`redis` 4-6, from `createClient()`) or ioredis (`new Redis()`). psp-sdk
 * only sends it EVAL commands and never opens, closes or configures it.
 */
export type RedisClientLike = IoRedisLike | NodeRedisLike;

/** Runs one Lua script with its keys and arguments; resolves with Redis's reply (numbers, strings, null, arrays). */
export type RunScript = (script: string, keys: string[], args: (string | number)[]) => Promise<unknown>;

/** Wraps a merchant's client into the one call the stores need. */
export function scriptRunner(client: RedisClientLike): RunScript {
  // ioredis's Cluster says so; node-redis's cluster client has `masters` (its single client has not).
  if (client && ((client as { isCluster?: unknown }).isCluster === true || 'masters' in client))
    throw new TypeError(
      'psp-sdk/replicas: Redis Cluster clients are not supported (node-redis createCluster(), ioredis Cluster): pass a client of one Redis server (createClient(), new Redis())',
    );
  if (client && typeof (client as IoRedisLike).call === 'function') {
    const io = client as IoRedisLike;
    return (script, keys, args) => io.call('EVAL', script, keys.length, ...keys, ...args);
  }
  if (client && typeof (client as NodeRedisLike).sendCommand === 'function') {
    const nr = client as NodeRedisLike;
    return (script, keys, args) =>
      nr.sendCommand(['EVAL', script, String(keys.length), ...keys, ...args.map(String)]);
  }
  throw new TypeError(
    'psp-sdk/replicas: expected a node-redis client (createClient() of "redis") or an ioredis client (new Redis())',
  );
}
