// Issue 24 point 4, the stream half: three processes, each streaming with redisLease on one Redis against one
// reference. The holder is killed with SIGKILL; another must take over and stream (shown by the events it
// receives of payments created after the kill), and no two streams may ever be open at once: the reference's
// count of streams replaced by a second one with the same key stays 0. No time is measured for an assertion.
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningReference, startReference } from '../../src/reference/start.js';
import { haveRedis, type RedisServer, startRedisServer } from '../support/redis-server.js';
import { createPayment } from './fixtures/stream-contenders.js';
import { bundled } from '../support/bundles.js';

const TTL = 2_000;

interface Replica {
  child: ChildProcess;
  lines: Array<Record<string, unknown>>;
  /**
   * Resolves with the first line `match` accepts, one already received included: an event can reach the child and
   * its stdout before the parent's own HTTP answer that made it (waiting only for lines to come would miss it).
   */
  next(match: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
}

function spawnReplica(env: Record<string, string>): Replica {
  const child = spawn(process.execPath, [bundled('stream-child')], {
    env: { ...process.env, ...env, PSP_LOG: 'debug' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const waiters: Array<{
    match: (l: Record<string, unknown>) => boolean;
    resolve: (l: Record<string, unknown>) => void;
  }> = [];
  const replica: Replica = {
    child,
    lines: [],
    next: (match) => {
      const seen = replica.lines.find(match);
      return seen ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ match, resolve }));
    },
  };
  createInterface({ input: child.stdout! }).on('line', (text) => {
    let line: Record<string, unknown>;
    try {
      line = JSON.parse(text);
    } catch {
      return;
    }
    replica.lines.push(line);
    for (const w of waiters.filter((w) => w.match(line))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(line);
    }
  });
  return replica;
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once('exit', () => resolve()));

describe.skipIf(!haveRedis())('fleet: one event stream holder among three processes', () => {
  let server: RedisServer;
  let ref: RunningReference;
  const replicas: Replica[] = [];
  beforeAll(async () => {
    server = await startRedisServer();
    ref = await startReference({ port: 0, clock: 'manual' });
  });
  afterAll(async () => {
    for (const r of replicas) r.child.kill('SIGKILL');
    await Promise.all(replicas.map((r) => exited(r.child)));
    await ref?.close();
    await server?.stop();
  });

  it.each(['redis', 'ioredis'])(
    'through %s: the holder is SIGKILLed, another streams, never two streams at once',
    { timeout: 120_000 },
    async (kind) => {
      const env = {
        PSP_API_KEY: ref.api_key,
        PSP_BASE_URL: ref.base_url,
        REDIS_URL: server.url,
        REDIS_CLIENT: kind,
        LEASE_NAME: `fleet-${kind}`,
        LEASE_TTL_MS: String(TTL),
      };
      const fleet = [spawnReplica(env), spawnReplica(env), spawnReplica(env)];
      replicas.push(...fleet);
      // The first holder connects; a payment created now reaches it.
      const connected = (r: Replica) => r.next((l) => l.connected === true).then(() => r);
      const holder = await Promise.race(fleet.map(connected));
      const before = await createPayment(ref);
      await holder.next((l) => l.event === before);

      const killedAt = performance.now();
      holder.child.kill('SIGKILL');
      await exited(holder.child);
      const survivors = fleet.filter((r) => r !== holder);
      const next = await Promise.race(survivors.map(connected));
      const failoverMs = Math.round(performance.now() - killedAt);
      const after = await createPayment(ref);
      await next.next((l) => l.event === after);
      console.log(
        `[fleet-stream] ${kind}: a new holder streamed ${failoverMs} ms after the SIGKILL (ttl ${TTL})`,
      );

      // Only the new holder got it, and the service never had to replace a stream.
      for (const r of survivors.filter((r) => r !== next))
        expect(r.lines.filter((l) => 'connected' in l)).toEqual([]);
      expect(ref.stats().streams_replaced).toBe(0);
      for (const r of survivors) r.child.kill('SIGKILL');
      await Promise.all(survivors.map((r) => exited(r.child)));
      expect(ref.stats().streams_replaced).toBe(0);
    },
  );
});
