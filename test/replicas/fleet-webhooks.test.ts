// The fleet (issue 24, point 4): the reference delivers webhooks through a round-robin proxy to three receiver
// processes, each with createWebhookHandler + redisDedupe on one Redis, and a side effect of one fenced INCR per
// event in a second Redis.
// Duplicates are made on purpose: receivers answer 500 at random (seeded), before the handler and after it (a lost
// acknowledgement); one receiver kills itself with SIGKILL inside its handler, holding an event's lease; another
// stops itself (SIGSTOP, a GC pause or a frozen container) inside its handler and is resumed only after its lease
// ran out and another replica ran the event, whereupon it carries on into its side effect (issue 32, F1); the
// reference's retries are driven by its manual clock; then every event is resent from the cabinet. Last, one more
// payment's event is held inside a handler while the dedupe Redis is restarted (SIGTERM, then started again on
// its port and data folder with the append-only file docs/replicas.md recommends) and the event is resent
// meanwhile (issue 32, F1); the side effects' Redis is not restarted, so it counts across the restart. Promise:
// every event's fenced side effect happened exactly once, none missing; the paused replica's signal was aborted
// and its late write refused by the fence.
//
// No wall-clock assertion: the loop waits for what the delivery log says (bounded polling), and the only real-time
// mechanism, a dead or paused replica's lease running out, is waited for by resending until the event is
// acknowledged. The proxy marks the paused replica down (as a load balancer's health check would) and answers its
// requests in flight 502, so the reference does not wait out its 15 s deadline.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningReference, startReference } from '../../src/reference/index.js';
import { haveRedis, type RedisServer, startRedisServer } from '../support/redis-server.js';
import { bundled } from '../support/bundles.js';

const ROOT = join(import.meta.dirname, '..', '..');
const PAYMENTS = 12;
/** The amount of the last payment, whose event a replica holds inside its handler through the restart. */
const HOLD_AMOUNT = 4242;
// docs/replicas.md's settings for markers, leases and fences that survive a restart.
const DEDUPE_ARGS = ['--appendonly', 'yes', '--appendfsync', 'everysec'];
// Renewed every third while a handler runs, and lost four fifths in without a confirmed renewal: far above a
// loaded machine's stalls, so only the paused replica loses one. The paused replica is resumed after it ran out.
const LEASE_MS = 8000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Replica {
  child: ChildProcess;
  port: number;
  exited: Promise<NodeJS.Signals | null>;
  /** The event id it printed just before stopping itself (PAUSE=1), once it has. */
  pausedIn(): string | undefined;
  /** The event id it holds inside its handler until SIGUSR2 (HOLD_AMOUNT), once it does. */
  holding(): string | undefined;
}

async function startReplica(env: Record<string, string>): Promise<Replica> {
  const child = spawn(process.execPath, [bundled('webhook-receiver')], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<NodeJS.Signals | null>((r) => child.once('exit', (_c, signal) => r(signal)));
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /\{"port":(\d+)\}/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`receiver exited early (${code})`)));
  });
  return {
    child,
    port,
    exited,
    pausedIn: () => /\{"paused":"([^"]+)"\}/.exec(out)?.[1],
    holding: () => /\{"holding":"([^"]+)"\}/.exec(out)?.[1],
  };
}

type Proxy = Server & { markDown(port: number): void; markUp(port: number): void };

/**
 * A round-robin load balancer on 127.0.0.1; a refused connection (a dead replica) goes to the next one. A port
 * marked down gets no new requests, and its requests in flight are answered 502.
 */
function startProxy(ports: number[], first = 0): Promise<Proxy> {
  let next = first;
  const down = new Set<number>();
  const inFlight = new Map<ReturnType<typeof httpRequest>, number>();
  const server = createServer(async (req, res) => {
    res.on('error', () => {});
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const tryTarget = (left: number) => {
      const port = ports[next++ % ports.length]!;
      if (down.has(port) && left > 1) return tryTarget(left - 1);
      const up = httpRequest(
        { host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers },
        (r) => {
          inFlight.delete(up);
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        },
      );
      inFlight.set(up, port);
      up.on('error', (e: NodeJS.ErrnoException) => {
        inFlight.delete(up);
        if (e.code === 'ECONNREFUSED' && left > 1) tryTarget(left - 1);
        else if (!res.headersSent) res.writeHead(502).end();
      });
      up.end(body);
    };
    tryTarget(ports.length);
  });
  return new Promise((r) =>
    server.listen(0, '127.0.0.1', () =>
      r(
        Object.assign(server, {
          markDown(port: number) {
            down.add(port);
            for (const [up, p] of inFlight) if (p === port) up.destroy(new Error('marked down'));
          },
          markUp: (port: number) => void down.delete(port),
        }),
      ),
    ),
  );
}

describe.skipIf(!haveRedis())('three webhook receivers behind a load balancer, one Redis', () => {
  /** The dedupe store's Redis, restarted by the test; `effects` keeps the side effects and the test's records. */
  let redisServer: RedisServer;
  let effectsServer: RedisServer;
  const dedupeDir = mkdtempSync(join(tmpdir(), 'psp-fleet-dedupe-'));
  let ref: RunningReference;
  let proxy: Proxy;
  let redis: ReturnType<typeof createClient>;
  const replicas: Replica[] = [];

  beforeAll(async () => {
    redisServer = await startRedisServer({ dir: dedupeDir, args: DEDUPE_ARGS });
    effectsServer = await startRedisServer();
  });
  afterAll(async () => {
    for (const r of replicas) {
      if (r.child.exitCode !== null || r.child.signalCode !== null) continue;
      r.child.kill('SIGCONT'); // a replica left paused by a failed run must still end
      r.child.kill();
    }
    await Promise.all(replicas.map((r) => r.exited));
    if (redis?.isOpen) redis.destroy();
    await ref?.close();
    await new Promise((r) => (proxy ? proxy.close(r) : r(undefined)));
    await redisServer?.stop();
    await effectsServer?.stop();
    rmSync(dedupeDir, { recursive: true, force: true });
  });

  it('runs every event exactly once through retries, lost acknowledgements, resends, a SIGKILL, a SIGSTOP and a Redis restart', {
    timeout: 180_000,
  }, async () => {
    const ports: number[] = [];
    // The first delivery goes to the replica that pauses (see below).
    proxy = await startProxy(ports, 2);
    ref = await startReference({ port: 0, clock: 'manual' });
    const { port: proxyPort } = proxy.address() as { port: number };
    const ep = await ref.control.createWebhookEndpoint(ref.shop_id, {
      url: `http://127.0.0.1:${proxyPort}/webhooks`,
    });
    // Both clients on one store: the replica that pauses holds its lease through ioredis, the others through
    // node-redis.
    for (const [i, die, pause, client] of [
      [0, '0', '0', 'redis'],
      [1, '1', '0', 'redis'],
      [2, '0', '1', 'ioredis'],
    ] as const) {
      const r = await startReplica({
        REDIS_URL: redisServer.url,
        REDIS_CLIENT: client,
        EFFECTS_URL: effectsServer.url,
        HOLD_AMOUNT: String(HOLD_AMOUNT),
        SECRET: ep.secret,
        SEED: String(1000 + i),
        LEASE_MS: String(LEASE_MS),
        DIE: die,
        PAUSE: pause,
      });
      replicas.push(r);
      ports.push(r.port);
    }

    const pay = async (amount: number) => {
      const res = await ref.fetch(
        new Request(`${ref.base_url}/api/v1/public/payments`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ref.api_key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ amount }),
        }),
      );
      expect(res.status).toBe(201);
      const { payment } = (await res.json()) as { payment: { id: string } };
      await ref.control.succeedPayment(payment.id);
    };
    // The replica that pauses does so only in a delivery it handles alone (the fixture says why). The first
    // payment's one delivery reaches it alone (its seeded random lets the first through to the handler); a run in
    // which every later delivery to it overlapped another left it never paused (1 run in about 15).
    await pay(1000);
    for (let i = 0; i < 500 && replicas[2]!.pausedIn() === undefined; i++) await sleep(20);
    for (let i = 1; i < PAYMENTS; i++) await pay(1000 + i);

    const log = async () => (await ref.control.listDeliveries(ep.id)).items;
    const ok = (s: number | null) => s !== null && s >= 200 && s < 300;
    /** Entries per event id, in order. */
    const byEvent = async () => {
      const items = await log();
      const m = new Map<string, typeof items>();
      for (const e of items) m.set(e.event_id, [...(m.get(e.event_id) ?? []), e]);
      return m;
    };

    redis = createClient({ url: effectsServer.url });
    await redis.connect();
    const paused = replicas[2]!;
    let pausedIn: string | undefined;
    let resumed = false;
    // The paused replica: once it has stopped inside a handler, the balancer marks it down; once another replica
    // ran that event (its fenced count is 1, so the paused one's lease ran out), it is resumed and marked up.
    async function watchPause(): Promise<void> {
      if (resumed) return;
      if (pausedIn === undefined) {
        pausedIn = paused.pausedIn();
        if (pausedIn === undefined) return;
        proxy.markDown(paused.port);
      }
      if ((await redis.get(`fleet:count:${pausedIn}`)) !== '1') return;
      paused.child.kill('SIGCONT');
      resumed = true;
      for (let i = 0; i < 500 && !(await redis.get(`fleet:resumed:${pausedIn}`)); i++) await sleep(20);
      proxy.markUp(paused.port);
    }

    let heldIn: string | undefined;
    // The held replica: once a handler holds the last payment's event, the dedupe Redis is stopped and started
    // again on its port and folder, the event is resent (its copy must not run beside the held one: a lease that
    // survived answers 409), and once that copy was answered the holder is let go. Watched beside settle, not
    // from its loop: the hold may be in a retry, whose advanceClock waits for the attempt to end.
    async function watchHold(after: Map<string, number>): Promise<void> {
      if (heldIn !== undefined) return;
      const holder = replicas.find((r) => r.holding() !== undefined);
      if (!holder) return;
      heldIn = holder.holding()!;
      const logged = async () => (await byEvent()).get(heldIn!)?.length ?? 0;
      const before = await logged();
      const { port } = redisServer;
      await redisServer.stop();
      redisServer = await startRedisServer({ port, dir: dedupeDir, args: DEDUPE_ARGS });
      // Two more entries to wait for (settle waits for more than `after`): the held attempt's and the resend's
      // first, each logged when it ends.
      after.set(heldIn, before + 1);
      await ref.control.resendEvent(heldIn);
      for (let i = 0; i < 500 && (await logged()) === before; i++) await sleep(20);
      holder.child.kill('SIGUSR2');
    }

    // Drives the reference until every event's latest series ended in a 2xx: waits for attempts in flight,
    // advances the manual clock to the next retry, and resends a series that gave up. `after` holds, per event,
    // how many log entries must exist first (a resend not yet attempted is in flight too). Bounded.
    async function settle(after: Map<string, number>, expected = PAYMENTS): Promise<void> {
      for (let round = 0; round < 3000; round++) {
        await watchPause();
        const events = await byEvent();
        const now = ref.clock.now();
        let inFlight = events.size < expected;
        const due: number[] = [];
        const gaveUp: string[] = [];
        for (const [id, entries] of events) {
          const last = entries.at(-1)!;
          if (entries.length <= (after.get(id) ?? 0)) inFlight = true;
          else if (ok(last.status_code)) continue;
          else if (last.next_attempt_at === null) gaveUp.push(id);
          else if (Date.parse(last.next_attempt_at) <= now) inFlight = true;
          else due.push(Date.parse(last.next_attempt_at));
        }
        if (inFlight) {
          await sleep(20);
          continue;
        }
        if (!due.length && !gaveUp.length) return;
        for (const id of gaveUp) {
          after.set(id, events.get(id)!.length);
          await ref.control.resendEvent(id);
        }
        if (!gaveUp.length) await ref.control.advanceClock(Math.ceil((Math.min(...due) - now) / 1000));
        // A lease held by the dead replica runs out in Redis's own time: give it a moment between rounds of 409s.
        else await sleep(50);
      }
      const events = [...(await byEvent())];
      const open = events.filter(([id, e]) => !ok(e.at(-1)!.status_code) || e.length <= (after.get(id) ?? 0));
      throw new Error(
        `the deliveries did not settle: ${JSON.stringify({ heldIn, resumed, after: [...after], open })}`,
      );
    }

    await settle(new Map());
    // Every event once more, from the cabinet: each arrives again with the same id.
    const before = new Map([...(await byEvent())].map(([id, entries]) => [id, entries.length]));
    for (const id of before.keys()) await ref.control.resendEvent(id);
    await settle(before);
    for (let i = 0; i < 500 && !resumed; i++) {
      await watchPause();
      if (!resumed) await sleep(20);
    }
    // One more event, held inside a handler through the dedupe Redis's restart.
    await pay(HOLD_AMOUNT);
    const last = new Map<string, number>();
    let settled = false;
    const watching = (async () => {
      while (!settled && heldIn === undefined) {
        await watchHold(last);
        if (heldIn === undefined) await sleep(20);
      }
    })();
    try {
      await settle(last, PAYMENTS + 1);
    } finally {
      settled = true;
      await watching;
    }

    const ids = [...(await byEvent()).keys()];
    expect(ids).toHaveLength(PAYMENTS + 1);
    expect(heldIn).toBeDefined();
    expect(ids).toContain(heldIn);
    const counts = await Promise.all(ids.map((id) => redis.get(`fleet:count:${id}`)));
    expect(counts).toEqual(ids.map(() => '1'));
    // The paused replica was resumed past its lease: told (signal aborted), its late write refused by the fence,
    // because the run that did write had a newer one.
    expect(resumed).toBe(true);
    const seen = JSON.parse((await redis.get(`fleet:resumed:${pausedIn}`)) ?? 'null');
    expect(seen).toMatchObject({ aborted: true, wrote: 0 });
    expect(Number(await redis.get(`fleet:fence:${pausedIn}`))).toBeGreaterThan(seen.fence);
    // The duplicates were real: a replica died inside a handler (inside one or two: deliveries reach it side by
    // side, and a second can enter its handler before the first kill lands), and the service saw failures and
    // resends.
    expect((await redis.keys('fleet:died-in:*')).length).toBeGreaterThanOrEqual(1);
    expect(await replicas[1]!.exited).toBe('SIGKILL');
    const statuses = (await log()).map((e) => e.status_code);
    expect(statuses.some((s) => s === 500)).toBe(true);
    expect(statuses.filter(ok).length).toBeGreaterThanOrEqual(2 * PAYMENTS);
  });
});
