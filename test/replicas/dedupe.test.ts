// The promises of webhook dedupe (issue 24, point 1), each shown on two handler instances sharing one store, as
// two replicas would: against memoryDedupe on a fake clock, and against a real redis-server through node-redis
// and ioredis alike. Nothing here sleeps or times anything: a lease runs out by the fake clock, or, on Redis,
// by a short leaseMs that a bounded poll waits out.
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { memoryDedupe, redisDedupe } from '../../src/replicas/index.js';
import { type RedisClientLike, scriptRunner } from '../../src/replicas/redis.js';
import {
  createWebhookHandler,
  type DedupeBegin,
  signWebhook,
  type WebhookDedupe,
  type WebhookHandlerOptions,
} from '../../src/webhooks/index.js';
import { ManualClock } from '../../src/reference/domain/clock.js';
import { haveRedis, LOADED, type RedisServer, startRedisServer } from '../support/redis-server.js';
import { envelope, SECRET } from '../webhooks/helpers.js';

let seq = 0;
const freshId = () => `evt_${process.pid}_${Date.now()}_${++seq}`;

function delivery(id: string): Request {
  const { body, headers } = signWebhook({ ...envelope(), id }, SECRET);
  return new Request('http://127.0.0.1/webhooks', { method: 'POST', body, headers });
}

/** Two replicas: two handlers, one store, one shared work function. */
function replicas(
  store: WebhookDedupe,
  work: (id: string) => unknown,
  extra: Partial<WebhookHandlerOptions> = {},
) {
  const options = {
    secret: SECRET,
    dedupe: store,
    on: { 'payment.succeeded': (e: { id: string }) => work(e.id) },
    onError: () => {},
    ...extra,
  };
  return [createWebhookHandler(options), createWebhookHandler(options)] as const;
}

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return { open, opened };
}

interface Backend {
  /** A store with a short lease (Redis: 1 s; memory: a fake clock). */
  store(): WebhookDedupe;
  /**
   * Redis only: the store of a replica that the test can kill (its connection is cut, so it renews nothing from
   * then on, as a dead process would). In one process's memory a live handler keeps its lease renewed.
   */
  mortal?(): Promise<{ store: WebhookDedupe; kill(): Promise<void> }>;
  /** Lets the leases taken so far run out (the ones nobody renews). */
  expireLeases(): Promise<void>;
}

/** Waits, bounded by the test's timeout, until `fn` is true: for a lease that runs out in real time. */
async function until(fn: () => Promise<boolean>): Promise<void> {
  while (!(await fn())) await new Promise((r) => setTimeout(r, 25));
}

function promises(name: string, backend: () => Backend) {
  describe(name, () => {
    it('runs the handler once when one event is delivered to both replicas at once', async () => {
      const b = backend();
      const runs: string[] = [];
      const held = gate();
      const [a, c] = replicas(b.store(), async (id) => {
        runs.push(id);
        await held.opened;
      });
      const id = freshId();
      const first = a(delivery(id));
      // The first one holds the lease while it runs; every concurrent delivery, on either replica, is refused.
      await vi.waitFor(() => expect(runs).toHaveLength(1), LOADED);
      const others = await Promise.all([c(delivery(id)), a(delivery(id)), c(delivery(id))]);
      for (const r of others) {
        expect(r.status).toBe(409);
        expect(r.headers.get('retry-after')).toMatch(/^\d+$/);
        expect(await r.json()).toEqual({ error: 'in_progress' });
      }
      held.open();
      expect((await first).status).toBe(200);
      expect(runs).toEqual([id]);
    });

    it('answers 2xx without running the handler for an event already handled', async () => {
      const b = backend();
      const runs: string[] = [];
      const [a, c] = replicas(b.store(), (id) => runs.push(id));
      const id = freshId();
      expect((await a(delivery(id))).status).toBe(200);
      for (const r of [await c(delivery(id)), await a(delivery(id))]) {
        expect(r.status).toBe(200);
        expect(await r.json()).toEqual({ received: true, duplicate: true });
      }
      expect(runs).toEqual([id]);
    });

    it('a handler that throws answers 500, and the next delivery runs it', async () => {
      const b = backend();
      let calls = 0;
      const [a, c] = replicas(b.store(), () => {
        if (++calls === 1) throw new Error('database down');
      });
      const id = freshId();
      expect((await a(delivery(id))).status).toBe(500);
      expect((await c(delivery(id))).status).toBe(200);
      expect(calls).toBe(2);
      expect(await (await a(delivery(id))).json()).toEqual({ received: true, duplicate: true });
      expect(calls).toBe(2);
    });

    it('a replica that dies inside the handler blocks the event only until its lease runs out', async (t) => {
      const b = backend();
      if (!b.mortal) return t.skip();
      const dying = await b.mortal();
      const store = b.store();
      const id = freshId();
      let calls = 0;
      // The dead replica: its handler never returns, and its connection is cut, so it renews nothing.
      const [dead] = replicas(dying.store, () => {
        calls++;
        return new Promise(() => {});
      });
      void dead(delivery(id));
      await vi.waitFor(() => expect(calls).toBe(1), LOADED);
      await dying.kill();
      const [, live] = replicas(store, () => {
        calls++;
      });
      expect((await live(delivery(id))).status).toBe(409);
      await b.expireLeases();
      let last: Response | undefined;
      await until(async () => {
        last = await live(delivery(id));
        return last.status !== 409;
      });
      expect(last?.status).toBe(200);
      expect(calls).toBe(2);
    });

    it('a live handler keeps its lease renewed: three lease times later a redelivery still answers 409', async () => {
      const b = backend();
      const store = b.store();
      const id = freshId();
      const held = gate();
      const runs: string[] = [];
      const [a, c] = replicas(store, async (eventId) => {
        runs.push(eventId);
        await held.opened;
      });
      const first = a(delivery(id));
      await vi.waitFor(() => expect(runs).toHaveLength(1), LOADED);
      for (let i = 0; i < 3; i++) await b.expireLeases();
      expect((await c(delivery(id))).status).toBe(409);
      held.open();
      expect((await first).status).toBe(200);
      expect(runs).toEqual([id]);
    });

    it('only the lease holder can finish or abandon: a replica whose lease ran out cannot mark done', async (t) => {
      const b = backend();
      if (!b.mortal) return t.skip();
      const dying = await b.mortal();
      const store = b.store();
      const id = freshId();
      const first = await dying.store.begin(id);
      expect(first.state).toBe('started');
      await dying.kill();
      await b.expireLeases();
      let second = { state: 'running' } as DedupeBegin;
      await until(async () => {
        second = await store.begin(id);
        return second.state === 'started';
      });
      if (first.state !== 'started' || second.state !== 'started') throw new Error('unreachable');
      expect(second.fence).toBe((first.fence ?? 0) + 1);
      // Its signal was aborted (renewals failed); its token is refused by any store (its own has no connection).
      expect(first.signal?.aborted).toBe(true);
      expect(await dying.store.finish(id, first.token).catch(() => false)).toBe(false);
      expect(await store.finish(id, first.token)).toBe(false);
      expect(await store.abandon(id, first.token)).toBe(false);
      expect(await store.begin(id)).toEqual({ state: 'running' });
      expect(await store.finish(id, second.token)).toBe(true);
      expect(await store.begin(id)).toEqual({ state: 'done' });
    });
  });
}

// --- memory, on a fake clock ---------------------------------------------------------------------------------
promises('memoryDedupe', () => {
  const clock = new ManualClock(1_000_000);
  const store = memoryDedupe({ leaseMs: 1000, clock });
  return {
    store: () => store,
    // 10 ms at a time, letting what each due timer started (a renewal) complete, as it would in real time.
    expireLeases: async () => {
      for (let i = 0; i < 101; i++) {
        await clock.advance(10);
        for (let j = 0; j < 5; j++) await new Promise((r) => setImmediate(r));
      }
    },
  };
});

describe('memoryDedupe bounds', () => {
  it('drops expired entries and, past maxEntries, forgets the oldest done markers first', async () => {
    const clock = new ManualClock(0);
    const store = memoryDedupe({ leaseMs: 100, keepMs: 1000, maxEntries: 10, clock });
    const finish = async (id: string) => {
      const c = await store.begin(id);
      if (c.state === 'started') await store.finish(id, c.token);
    };
    for (let i = 0; i < 10; i++) await finish(`old${i}`);
    // Full of done markers: the next begin forgets the oldest ones, never a running lease.
    const running = await store.begin('running');
    expect(running.state).toBe('started');
    expect(await store.begin('old0')).toMatchObject({ state: 'started' });
    expect(await store.begin('old9')).toEqual({ state: 'done' });
    expect(await store.begin('running')).toEqual({ state: 'running' });
    // Past keepMs every marker is gone: the events run again.
    await clock.advance(2000);
    expect((await store.begin('old9')).state).toBe('started');
  });

  it('refuses to begin (the handler answers 503) when every entry is a running lease', async () => {
    const store = memoryDedupe({ maxEntries: 3, clock: new ManualClock(0) });
    for (const id of ['a', 'b', 'c']) expect((await store.begin(id)).state).toBe('started');
    await expect(store.begin('d')).rejects.toThrow(/maxEntries/);
  });

  it('refuses options that are not positive integers', () => {
    expect(() => memoryDedupe({ leaseMs: 0 })).toThrow(TypeError);
    expect(() => memoryDedupe({ leaseMs: 99 })).toThrow(/leaseMs must be at least 100/);
    expect(() => memoryDedupe({ keepMs: Number.POSITIVE_INFINITY })).toThrow(TypeError);
    expect(() => memoryDedupe({ maxEntries: -1 })).toThrow(TypeError);
  });
});

describe('when the store cannot be reached', () => {
  const down: WebhookDedupe = {
    begin: () => Promise.reject(new Error('ECONNREFUSED')),
    finish: () => Promise.reject(new Error('ECONNREFUSED')),
    abandon: () => Promise.reject(new Error('ECONNREFUSED')),
  };
  it("answers 503 with Retry-After and does not run the handler; onStoreError 'run' runs it unguarded", async () => {
    const runs: string[] = [];
    const errors: unknown[] = [];
    const [guarded] = replicas(down, (id) => runs.push(id), { onError: (e) => errors.push(e) });
    const r = await guarded(delivery('evt_down'));
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('60');
    expect(await r.json()).toEqual({ error: 'dedupe_unavailable' });
    expect(runs).toEqual([]);
    expect(errors).toHaveLength(1);
    const [unguarded] = replicas(down, (id) => runs.push(id), { onStoreError: 'run' });
    expect((await unguarded(delivery('evt_down'))).status).toBe(200);
    expect(runs).toEqual(['evt_down']);
  });
});

// --- Redis, through both clients -----------------------------------------------------------------------------
const clients: Array<
  [string, (url: string) => Promise<{ client: RedisClientLike; close(): Promise<void> }>]
> = [
  [
    'redis (node-redis)',
    async (url) => {
      // Without the offline queue a command fails at once while the server is down, instead of waiting for it.
      const c = createClient({ url, disableOfflineQueue: true, socket: { reconnectStrategy: 50 } });
      c.on('error', () => {});
      await c.connect();
      return { client: c, close: async () => c.destroy() };
    },
  ],
  [
    'ioredis',
    async (url) => {
      const c = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, lazyConnect: true });
      c.on('error', () => {});
      await c.connect();
      return { client: c, close: async () => c.disconnect() };
    },
  ],
];

describe.skipIf(!haveRedis())('redisDedupe on a real redis-server', () => {
  let server: RedisServer;
  const open: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    for (const close of open) await close().catch(() => {});
    await server?.stop();
  });

  for (const [name, connect] of clients) {
    let client: RedisClientLike;
    beforeAll(async () => {
      const c = await connect(server.url);
      open.push(c.close);
      client = c.client;
    });
    promises(name, () => {
      const options = { leaseMs: 1000, prefix: `test:${name}:` };
      return {
        store: () => redisDedupe(client, options),
        mortal: async () => {
          const c = await connect(server.url);
          open.push(c.close);
          return { store: redisDedupe(c.client, options), kill: c.close };
        },
        // The lease runs out in Redis's own time; the callers poll, bounded by the test timeout.
        expireLeases: async () => {},
      };
    });

    it(`${name}: with the server stopped, deliveries answer 503 and the handler does not run`, async () => {
      const own = await startRedisServer();
      const c = await connect(own.url);
      try {
        const runs: string[] = [];
        const [a] = replicas(redisDedupe(c.client), (id) => runs.push(id));
        expect((await a(delivery(freshId()))).status).toBe(200);
        await own.stop();
        const id = freshId();
        const r = await a(delivery(id));
        expect(r.status).toBe(503);
        expect(runs).toHaveLength(1);
      } finally {
        await c.close();
        await own.stop();
      }
    });

    it(`${name}: keys carry the prefix and expire (no key is kept forever)`, async () => {
      const store = redisDedupe(client, { prefix: 'ttl-check:', keepMs: 50_000 });
      const id = freshId();
      const c = await store.begin(id);
      if (c.state !== 'started') throw new Error('not started');
      await store.finish(id, c.token);
      const probe = scriptRunner(client);
      const ttl = Number(await probe("return redis.call('PTTL', KEYS[1])", [`ttl-check:${id}`], []));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(50_000);
    });
  }
});
