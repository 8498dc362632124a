// One event-stream holder among replicas, with the in-memory lease: the lease logic is the same for every store
// (src/replicas/lease-hold.ts), so its timing is asserted here exactly. The leases run on a manual clock that
// only the test moves (the reference's ManualClock, injected); the streams and the reference run for real.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type LeaseStore, leaseOver } from '../../src/replicas/lease-hold.js';
import { memoryStore } from '../../src/replicas/lease-memory.js';
import { memoryLease, redisLease } from '../../src/replicas/lease.js';
import { ManualClock } from '../../src/reference/domain/clock.js';
import { type RunningReference, startReference } from '../../src/reference/start.js';
import { until } from '../support/sse-server.js';
import { createPayment, type Fleet, faultyStore, startFleet } from './fixtures/stream-contenders.js';

const TTL = 3_000; // renewals every 1 000 ms; a hold not confirmed for 2 400 ms is lost
const STEP = 1_000;
const LIFE = 2_400;

let ref: RunningReference;
let clock: ManualClock;
let fleet: Fleet | undefined;
beforeEach(async () => {
  clock = new ManualClock(0);
  ref = await startReference({ port: 0, clock: 'manual' });
});
afterEach(async () => {
  await fleet?.closeAll();
  fleet = undefined;
  await ref.close();
});

const now = () => clock.now();
/**
 * Moves the leases' clock by `ms`, 10 ms at a time, letting what the due timers started (store steps, closes,
 * connections) run in between, as it would in real time.
 */
async function advance(ms: number) {
  for (let left = ms; left > 0; left -= 10) {
    await clock.advance(Math.min(10, left));
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  }
}

/** Waits for the one holder and its connection, and checks that it streams. */
async function streamingHolder(f: Fleet) {
  await until(() => expect(f.holders()).toHaveLength(1));
  const holder = f.holders()[0]!;
  await until(() => expect(holder.connects).toBeGreaterThan(0));
  const id = await createPayment(ref);
  await until(() => expect(holder.events).toContain(id));
  return holder;
}

/** Every replica's stores over one shared memory store, each of which the test can break. */
function faultyFleet(n: number) {
  const shared = memoryStore(clock);
  const stores = Array.from({ length: n }, () => faultyStore(shared, clock));
  fleet = startFleet(ref, n, (i) => leaseOver(stores[i]!.store, TTL, undefined, clock));
  return { shared, stores, fleet };
}

/** What a newcomer would be told: true (it took the lease: it was free), or the ms the holder still has. */
const probe = (shared: LeaseStore) => shared.take('probe', 1);

describe('memoryLease: one event stream holder among replicas', () => {
  it('of three replicas only one holds the lease and streams; it keeps it while it renews', async () => {
    fleet = startFleet(
      ref,
      3,
      (() => {
        const lease = memoryLease({ ttlMs: TTL, clock });
        return () => lease;
      })(),
    );
    const holder = await streamingHolder(fleet);
    for (let i = 0; i < 10; i++) await advance(STEP); // ten renewal periods, three lease times
    expect(fleet.holders()).toEqual([holder]);
    const id = await createPayment(ref);
    await until(() => expect(holder.events).toContain(id));
    const others = fleet.replicas.filter((r) => r !== holder);
    expect(others.map((r) => [r.events, r.connects, r.fetched.opened])).toEqual([
      [[], 0, 0],
      [[], 0, 0],
    ]);
    expect(holder.connects).toBe(1);
    expect(fleet.maxHolders).toBe(1);
    expect(fleet.maxOpen).toBe(1);
    expect(ref.stats().streams_replaced).toBe(0);
  });

  it("the holder's close() releases the lease: another takes over within a third of the lease time", async () => {
    const lease = memoryLease({ ttlMs: TTL, clock });
    fleet = startFleet(ref, 3, () => lease);
    const first = await streamingHolder(fleet);
    first.stream.close();
    await until(() => expect(first.ended).toBe(true));
    expect(first.outcome).toBeUndefined();
    expect(first.holding).toBe(false);
    await advance(STEP); // every waiter tries again within a third of the ttl
    const second = await streamingHolder(fleet);
    expect(second).not.toBe(first);
    expect(fleet.maxHolders).toBe(1);
    expect(fleet.maxOpen).toBe(1);
    expect(ref.stats().streams_replaced).toBe(0);
  });

  it('a holder that dies (no more renewals, its connection gone) is replaced once its lease runs out', async () => {
    const { stores } = faultyFleet(3);
    const dead = await streamingHolder(fleet!);
    dead.kill();
    stores[dead.index]!.state.mode = 'hang';
    const lastSecured = stores[dead.index]!.state.secured.at(-1)!;
    // Up to the last moment of its lease nobody else takes over...
    await advance(lastSecured + TTL - now() - 1);
    expect(fleet!.holders().filter((r) => r !== dead)).toEqual([]);
    // ...and just after it, one does.
    await advance(11);
    const next = await streamingHolder(fleet!);
    expect(next).not.toBe(dead);
    const failover = stores[next.index]!.state.secured[0]! - lastSecured;
    expect(failover).toBeGreaterThanOrEqual(TTL);
    expect(failover).toBeLessThanOrEqual(TTL + 10);
    console.log(
      `[lease-failover] memory, manual clock: the successor took the lease ${failover} ms after the dead holder's last renewal (ttl ${TTL})`,
    );
    expect(fleet!.maxHolders).toBe(1);
    expect(ref.stats().streams_replaced).toBe(0);
  });

  it('a holder whose renewal fails closes its stream at once, while the lease still has two thirds to run', async () => {
    const { shared, stores } = faultyFleet(3);
    const holder = await streamingHolder(fleet!);
    expect(holder.fetched.open).toBe(1);
    stores[holder.index]!.state.mode = 'fail';
    const lastSecured = stores[holder.index]!.state.secured.at(-1)!;
    await advance(lastSecured + STEP - now()); // the next renewal is sent, and fails
    await until(() => expect(holder.fetched.open).toBe(0));
    expect(holder.holding).toBe(false);
    expect(await probe(shared)).toBe(TTL - STEP); // nobody else could have opened a stream yet
    // Its loop did not end: it waits for the lease again (and the others take it when it runs out).
    await advance(TTL);
    const next = await streamingHolder(fleet!);
    expect(next).not.toBe(holder);
    expect(fleet!.maxHolders).toBe(1);
    expect(fleet!.maxOpen).toBe(1);
    expect(ref.stats().streams_replaced).toBe(0);
  });

  it('a holder whose renewal cannot complete closes its stream four fifths into the lease, before it expires', async () => {
    const { shared, stores } = faultyFleet(3);
    const holder = await streamingHolder(fleet!);
    stores[holder.index]!.state.mode = 'hang';
    const lastSecured = stores[holder.index]!.state.secured.at(-1)!;
    await advance(lastSecured + LIFE - now() - 1); // a renewal was sent at +1000 and never answered
    expect(holder.fetched.open).toBe(1);
    expect(holder.holding).toBe(true);
    await advance(1);
    await until(() => expect(holder.fetched.open).toBe(0));
    expect(holder.holding).toBe(false);
    // The store keeps the lease another fifth of the ttl: the margin in which the closed stream leaves the service.
    expect(await probe(shared)).toBe(TTL - LIFE);
    expect(fleet!.holders()).toEqual([]);
    await advance(TTL);
    const next = await streamingHolder(fleet!);
    expect(next).not.toBe(holder);
    expect(fleet!.maxOpen).toBe(1);
    expect(ref.stats().streams_replaced).toBe(0);
  });

  it('a waiting replica yields nothing, opens nothing, and its close() ends its loop at once', async () => {
    const lease = memoryLease({ ttlMs: TTL, clock });
    fleet = startFleet(ref, 2, () => lease);
    const holder = await streamingHolder(fleet);
    const waiter = fleet.replicas.find((r) => r !== holder)!;
    waiter.stream.close();
    await until(() => expect(waiter.ended).toBe(true));
    expect(waiter.outcome).toBeUndefined();
    expect([waiter.connects, waiter.fetched.opened, waiter.events]).toEqual([0, 0, []]);
    expect(fleet.holders()).toEqual([holder]);
  });
});

describe('lease options', () => {
  it.each([
    [{ ttlMs: 99 }, RangeError, /ttlMs must be an integer >= 100, got 99/],
    [{ ttlMs: 1.5e3 + 0.5 }, RangeError, /ttlMs must be an integer/],
    [{ name: '' }, TypeError, /name must be a non-empty string/],
  ])('refuses %o at construction', (options, type, message) => {
    expect(() => memoryLease(options)).toThrow(type);
    expect(() => memoryLease(options)).toThrow(message);
    expect(() => redisLease({ call: async () => null }, options)).toThrow(message);
  });

  it('refuses a Redis client of neither shape', () => {
    expect(() => redisLease({} as never)).toThrow(/node-redis client .* or an ioredis client/);
  });
});
