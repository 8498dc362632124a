// Issue 32: the dedupe lease against a real redis-server, through node-redis and ioredis alike.
// F1: the lease is renewed while a handler runs (three lease times long, a redelivery mid-way, no second run);
//     a Redis restart mid-handler, with and without appendonly, and what it does to the fence.
// F2: two endpoints of one shop (same event id) on one Redis each run every event.
// F4: a Redis that stops answering (SIGSTOP) gets a 503 within the deadline; the event runs later.
// F5: cluster clients are refused at construction; replies of the wrong type are 503, never "started".
// The leases' renewals and deadlines run on a manual clock the test moves; only Redis's own key expiry is real
// time, and the test waits for it by reading the key's PTTL, never by timing anything.
import { readFileSync } from 'node:fs';
import { createCluster, createClient } from 'redis';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../src/reference/domain/clock.js';
import { memoryDedupe, redisDedupe, redisLease } from '../../src/replicas/index.js';
import { leaseOver } from '../../src/replicas/lease-hold.js';
import type { RedisClientLike } from '../../src/replicas/redis.js';
import {
  createWebhookHandler,
  signWebhook,
  type WebhookDedupe,
  type WebhookRunContext,
} from '../../src/webhooks/index.js';
import { haveRedis, LOADED, type RedisServer, startRedisServer } from '../support/redis-server.js';
import { envelope, OLD_SECRET, SECRET } from '../webhooks/helpers.js';

let seq = 0;
const freshId = () => `evt_${process.pid}_${Date.now()}_${++seq}`;

function delivery(id: string, secret = SECRET): Request {
  const { body, headers } = signWebhook({ ...envelope(), id }, secret);
  return new Request('http://127.0.0.1/webhooks', { method: 'POST', body, headers });
}

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return { open, opened };
}

/** A handler on `store` whose work the test sees (its context) and holds (until `release`). */
function receiver(store: WebhookDedupe, work: (id: string, ctx: WebhookRunContext) => unknown, extra = {}) {
  return createWebhookHandler({
    secret: SECRET,
    dedupe: store,
    app: 'shop',
    fallback: (e, ctx) => work(e.id, ctx),
    onError: () => {},
    ...extra,
  });
}

/** A side effect written "only if my fence is the newest", as `UPDATE ... WHERE fence < $1` does. */
function fencedEffects() {
  let newest = 0;
  let count = 0;
  return {
    write(fence: number | undefined) {
      if (fence === undefined || fence <= newest) return false;
      newest = fence;
      count++;
      return true;
    },
    get count() {
      return count;
    },
  };
}

/** Moves the manual clock 10 ms at a time, letting what each due timer started (a renewal) complete. */
async function advance(clock: ManualClock, ms: number) {
  for (let left = ms; left > 0; left -= 10) {
    await clock.advance(Math.min(10, left));
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  }
}

/** Polls (bounded by the test's timeout) until `fn` holds. */
async function until(fn: () => Promise<boolean>) {
  while (!(await fn())) await new Promise((r) => setTimeout(r, 20));
}

interface Connected {
  client: RedisClientLike;
  raw: (...args: string[]) => Promise<unknown>;
  close(): Promise<void>;
}
const clients: Record<string, (url: string) => Promise<Connected>> = {
  'node-redis': async (url) => {
    const c = createClient({ url, disableOfflineQueue: true, socket: { reconnectStrategy: 50 } });
    c.on('error', () => {});
    await c.connect();
    return {
      client: c,
      raw: (...args) => c.sendCommand(args),
      close: async () => {
        if (c.isOpen) c.destroy();
      },
    };
  },
  ioredis: async (url) => {
    const c = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => 50 });
    c.on('error', () => {});
    await new Promise((r) => c.once('ready', r));
    return { client: c, raw: (cmd, ...args) => c.call(cmd!, ...args), close: async () => c.disconnect() };
  },
};

describe.skipIf(!haveRedis())('the dedupe lease on a real redis-server (issue 32)', () => {
  let server: RedisServer;
  const closing: Array<() => Promise<unknown>> = [];
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    for (const close of closing.reverse()) await close().catch(() => {});
    await server?.stop();
  });
  const connect = async (kind: string, url = server.url) => {
    const c = await clients[kind]!(url);
    closing.push(c.close);
    return c;
  };

  describe.each(Object.keys(clients))('through %s', (kind) => {
    it('F1: a handler three times leaseMs long keeps its lease; a redelivery mid-way does not run it again', {
      timeout: 60_000,
    }, async () => {
      const c = await connect(kind);
      const clock = new ManualClock(0);
      const LEASE = 1000;
      const store = redisDedupe(c.client, { leaseMs: LEASE, clock, prefix: `f1-long:${kind}:` });
      const runs: string[] = [];
      const held = gate();
      const [a, b] = [
        receiver(store, (id) => runs.push(id) && held.opened),
        receiver(store, (id) => runs.push(id)),
      ];
      const id = freshId();
      const key = `f1-long:${kind}:shop:${id}`;
      const pttl = async () => Number(await c.raw('PTTL', key));
      const first = a(delivery(id));
      await vi.waitFor(() => expect(runs).toHaveLength(1), LOADED);
      // Six times: let half the lease pass in Redis's own time, then move the renewal timer; the renewal lands
      // (PTTL back near the full lease). Without renewals the key would be gone after the second round.
      for (let round = 0; round < 6; round++) {
        await until(async () => (await pttl()) < LEASE / 2);
        await advance(clock, Math.floor(LEASE / 3) + 1);
        await until(async () => (await pttl()) > (LEASE * 3) / 4);
        if (round === 2) expect((await b(delivery(id))).status).toBe(409); // mid-way: running elsewhere
      }
      held.open();
      expect((await first).status).toBe(200);
      expect(await (await b(delivery(id))).json()).toEqual({ received: true, duplicate: true });
      expect(runs).toEqual([id]);
    });

    for (const appendonly of [true, false]) {
      it(`F1: Redis restarted mid-handler ${appendonly ? 'with' : 'without'} appendonly: one fenced effect`, {
        timeout: 60_000,
      }, async () => {
        const dir = mkdtempSync(join(tmpdir(), 'psp-redis-restart-'));
        const args = appendonly ? ['--appendonly', 'yes', '--appendfsync', 'always'] : [];
        let own = await startRedisServer({ dir, args });
        try {
          const c = await connect(kind, own.url);
          const clock = new ManualClock(0);
          // A long lease in Redis's time: only the restart can take the key away, not the test's pace.
          const store = redisDedupe(c.client, { leaseMs: 30_000, clock });
          const effects = fencedEffects();
          const seen: Array<{ fence: number | undefined; signal: AbortSignal }> = [];
          const held = gate();
          const work = async (_id: string, ctx: WebhookRunContext) => {
            seen.push(ctx);
            if (seen.length === 1) await held.opened;
            // What a careful handler does: stop if told the lease is lost, and write only with a newer fence.
            if (!ctx.signal.aborted) effects.write(ctx.fence);
          };
          const [a, b] = [receiver(store, work), receiver(store, work)];
          const id = freshId();
          const first = a(delivery(id));
          await vi.waitFor(() => expect(seen).toHaveLength(1), LOADED);
          expect(seen[0]!.fence).toBe(1);

          await own.stop();
          own = await startRedisServer({ port: own.port, dir, args });
          await until(async () => (await c.raw('PING').catch(() => '')) === 'PONG');
          // The next renewal: the key survived (appendonly) and is renewed, or it is gone and the hold is lost.
          await advance(clock, 10_001);
          const redelivered = await b(delivery(id));
          if (appendonly) {
            expect(seen[0]!.signal.aborted).toBe(false);
            expect(redelivered.status).toBe(409);
            expect(await c.raw('GET', `psp:webhook:shop:${id}:fence`)).toBe('1');
          } else {
            // Told before the end of its lease; the event ran on the redelivery, with a fence counted from 0
            // again: the same number as the lost run's, which is why the lost run must heed its signal.
            expect(seen[0]!.signal.aborted).toBe(true);
            expect(redelivered.status).toBe(200);
            expect(seen[1]!.fence).toBe(1);
          }
          held.open();
          expect((await first).status).toBe(200);
          expect(effects.count).toBe(1);
          expect((await b(delivery(id))).status).toBe(200);
          expect(effects.count).toBe(1);
        } finally {
          await own.stop();
          rmSync(dir, { recursive: true, force: true });
        }
      });
    }

    it('F2: two endpoints of one shop on one Redis (same event ids) each run every event', async () => {
      const c = await connect(kind);
      const runs = { fulfilment: 0, ledger: 0 };
      const fulfilment = createWebhookHandler({
        secret: SECRET,
        dedupe: redisDedupe(c.client),
        fallback: () => void runs.fulfilment++,
      });
      const ledger = createWebhookHandler({
        secret: OLD_SECRET,
        dedupe: redisDedupe(c.client),
        fallback: () => void runs.ledger++,
      });
      const ids = Array.from({ length: 5 }, freshId);
      for (const id of ids) {
        expect((await fulfilment(delivery(id, SECRET))).status).toBe(200);
        expect((await ledger(delivery(id, OLD_SECRET))).status).toBe(200);
      }
      expect(runs).toEqual({ fulfilment: 5, ledger: 5 });
      // Each app still runs each event once, and no key names a secret.
      expect(await (await ledger(delivery(ids[0]!, OLD_SECRET))).json()).toEqual({
        received: true,
        duplicate: true,
      });
      const keys = (await c.raw('KEYS', `psp:webhook:*${ids[0]}*`)) as string[];
      expect(keys).toHaveLength(4); // two markers, two fences
      expect(keys.join(' ')).not.toMatch(/whs_|9fK2pQ7|5hJ8kL2/);
      // The key docs/replicas.md tells a reader to DEL before a resend is this one: <prefix><app>:<event id>
      // (issue 44 item 6; it once said psp:webhook:<event id>, which names no key).
      const markers = keys.filter((k) => !k.endsWith(':fence'));
      for (const k of markers) expect(k).toMatch(new RegExp(`^psp:webhook:[^:]+:${ids[0]}$`));
      const guide = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'replicas.md'), 'utf8');
      expect(guide).toContain('DEL psp:webhook:<app>:<event id>');
      // An explicit app shares the namespace across endpoints when one app has several (or rotates secrets).
      const shared = { app: 'orders', dedupe: redisDedupe(c.client), onError: () => {} };
      let sharedRuns = 0;
      const one = createWebhookHandler({ ...shared, secret: SECRET, fallback: () => void sharedRuns++ });
      const two = createWebhookHandler({ ...shared, secret: OLD_SECRET, fallback: () => void sharedRuns++ });
      const id = freshId();
      await one(delivery(id, SECRET));
      await two(delivery(id, OLD_SECRET));
      expect(sharedRuns).toBe(1);
    });

    it('F4: a Redis that stops answering gets 503 within the deadline; the event runs later', {
      timeout: 60_000,
    }, async () => {
      const own = await startRedisServer();
      const resume = () => own.process.kill('SIGCONT');
      try {
        const c = await connect(kind, own.url);
        const runs: string[] = [];
        const handle = receiver(redisDedupe(c.client), (id) => runs.push(id), { storeTimeoutMs: 300 });
        const id = freshId();
        own.process.kill('SIGSTOP');
        const answer = await handle(delivery(id));
        // Answered while the server is still stopped: the deadline, not Redis, ended the wait.
        expect(answer.status).toBe(503);
        expect(answer.headers.get('retry-after')).toBe('60');
        expect(runs).toEqual([]);
        resume();
        let last: Response | undefined;
        await until(async () => {
          last = await handle(delivery(id));
          return last.status === 200;
        });
        expect(runs).toEqual([id]);
      } finally {
        resume();
        await own.stop();
      }
    });

    it('F5: replies of the wrong type are errors (503, the handler does not run), never "started"', async () => {
      const c = await connect(kind);
      for (const wrong of ['1', [1], ['1', '1'], null]) {
        // A "compatible" store: a real Redis, its replies replaced.
        const liar = {
          call: async (...args: (string | number)[]) => {
            await c.raw(...args.map(String));
            return wrong;
          },
        };
        const runs: string[] = [];
        const handle = receiver(redisDedupe(liar), (id) => runs.push(id));
        expect((await handle(delivery(freshId()))).status).toBe(503);
        expect(runs).toEqual([]);
      }
    });
  });

  it('F5: cluster clients are refused at construction, with a message', async () => {
    const nodeCluster = createCluster({ rootNodes: [{ url: server.url }] });
    const ioCluster = new Cluster([{ host: '127.0.0.1', port: server.port }], { lazyConnect: true });
    try {
      for (const cluster of [nodeCluster, ioCluster] as unknown as RedisClientLike[]) {
        expect(() => redisDedupe(cluster)).toThrow(/Cluster clients are not supported/);
        expect(() => redisLease(cluster)).toThrow(/Cluster clients are not supported/);
      }
    } finally {
      ioCluster.disconnect();
    }
  });
});

describe('F5: lease waits have a floor', () => {
  it('a store that keeps saying "1 ms left" is asked at most every 50 ms', async () => {
    const clock = new ManualClock(0);
    let takes = 0;
    const lease = leaseOver(
      {
        take: async () => {
          takes++;
          return 0;
        },
        renew: async () => false,
        release: async () => {},
      },
      3000,
      undefined,
      clock,
    );
    const done = new AbortController();
    const waiting = lease.acquire(done.signal);
    await advance(clock, 1000);
    done.abort();
    expect(await waiting).toBeUndefined();
    expect(takes).toBeGreaterThan(1);
    expect(takes).toBeLessThanOrEqual(21);
  });

  it('memoryDedupe hands out a fence that grows with every begin of an event id', async () => {
    const store = memoryDedupe({ clock: new ManualClock(0) });
    const fences: Array<number | undefined> = [];
    for (let i = 0; i < 3; i++) {
      const claim = await store.begin('evt_1');
      if (claim.state !== 'started') throw new Error('not started');
      fences.push(claim.fence);
      await store.abandon('evt_1', claim.token);
    }
    expect(fences).toEqual([1, 2, 3]);
  });
});
