import { describe, expect, test } from 'vitest';
import { MAX_ATTEMPTS } from '../../../src/reference/webhooks/index.js';
import { SHOP_A, stubbedServicePerTest, succeeded, T0 } from './helpers.js';

const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;
/** Offsets of the 9 attempts from the first, spec 6.1: +10 s, 1 min, 5 min, 30 min, 2 h, 6 h, 24 h, 48 h. */
const OFFSETS = [0, 10 * S, 10 * S + MIN, 10 * S + 6 * MIN, 10 * S + 36 * MIN];
OFFSETS.push(OFFSETS[4]! + 2 * H, OFFSETS[4]! + 8 * H, OFFSETS[4]! + 32 * H, OFFSETS[4]! + 80 * H);

const setup = stubbedServicePerTest();

describe('retry schedule (spec 6.1, 8)', () => {
  test('a receiver that always fails gets 9 attempts at 0, +10 s, +1 min, +5 min, +30 min, +2 h, +6 h, +24 h, +48 h, then none', async () => {
    const { bus, clock, seen, attemptTimes, svc } = setup(() => new Response('no', { status: 500 }));
    const ep = svc.createEndpoint(SHOP_A, { url: 'https://shop.example/hooks' });
    bus.publish(succeeded());
    await svc.idle();
    expect(attemptTimes).toEqual([T0]);
    // Step just short of each due time, then onto it: the attempt happens exactly then, not before.
    for (let i = 1; i < OFFSETS.length; i++) {
      const due = T0 + OFFSETS[i]!;
      await clock.advance(due - 1 - clock.now());
      expect(attemptTimes).toHaveLength(i);
      await clock.advance(1);
      expect(attemptTimes).toHaveLength(i + 1);
      expect(attemptTimes[i]).toBe(due);
    }
    expect(MAX_ATTEMPTS).toBe(9);
    await clock.advance(30 * 24 * H);
    expect(attemptTimes).toHaveLength(9);
    expect(clock.nextDue()).toBeUndefined();
    expect(svc.stats().pending).toBe(0);

    const log = svc.deliveries(ep.id);
    expect(log.map((e) => e.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(log.map((e) => Date.parse(e.at) - T0)).toEqual(OFFSETS);
    expect(log.map((e) => (e.next_attempt_at === null ? null : Date.parse(e.next_attempt_at) - T0))).toEqual([
      ...OFFSETS.slice(1),
      null,
    ]);
    for (const e of log) {
      expect(e.status_code).toBe(500);
      expect(e.error).toBe('HTTP 500');
    }
    // One event, one stable id across all attempts.
    const ids = new Set(seen.map((r) => r.headers['x-psp-event-id']));
    expect(ids.size).toBe(1);
    expect(new Set(seen.map((r) => JSON.parse(r.body).id))).toEqual(ids);
  });

  test('a 2xx ends the series: no further attempts', async () => {
    const { bus, clock, attemptTimes, svc } = setup(
      (_r, i) => new Response(null, { status: i < 2 ? 503 : 204 }),
    );
    const ep = svc.createEndpoint(SHOP_A, { url: 'https://shop.example/hooks' });
    bus.publish(succeeded());
    await svc.idle();
    await clock.advance(7 * 24 * H);
    expect(attemptTimes.map((t) => t - T0)).toEqual(OFFSETS.slice(0, 3));
    const log = svc.deliveries(ep.id);
    expect(log.map((e) => [e.status_code, e.error === null, e.next_attempt_at === null])).toEqual([
      [503, false, false],
      [503, false, false],
      [204, true, true],
    ]);
  });

  test('every 2xx counts as delivered, anything else does not', async () => {
    for (const status of [200, 201, 202, 204, 299]) {
      const { bus, svc } = setup(() => new Response(null, { status }));
      const ep = svc.createEndpoint(SHOP_A, { url: 'https://shop.example/hooks' });
      bus.publish(succeeded());
      await svc.idle();
      expect(svc.deliveries(ep.id)[0]).toMatchObject({
        status_code: status,
        error: null,
        next_attempt_at: null,
      });
      await svc.close();
    }
    for (const status of [400, 404, 410, 429, 500]) {
      const { bus, svc } = setup(() => new Response(null, { status }));
      const ep = svc.createEndpoint(SHOP_A, { url: 'https://shop.example/hooks' });
      bus.publish(succeeded());
      await svc.idle();
      const [entry] = svc.deliveries(ep.id);
      expect(entry).toMatchObject({ status_code: status, error: `HTTP ${status}` });
      expect(entry?.next_attempt_at).not.toBeNull();
      await svc.close();
    }
  });

  test('each endpoint has its own series: one failing does not delay or repeat the other', async () => {
    const { bus, clock, seen, svc } = setup(
      (r) => new Response(null, { status: r.url.includes('bad') ? 500 : 200 }),
    );
    const good = svc.createEndpoint(SHOP_A, { url: 'https://shop.example/good' });
    const bad = svc.createEndpoint(SHOP_A, { url: 'https://shop.example/bad' });
    bus.publish(succeeded());
    await svc.idle();
    await clock.advance(4 * 24 * H);
    expect(seen.filter((r) => r.url.includes('good'))).toHaveLength(1);
    expect(seen.filter((r) => r.url.includes('bad'))).toHaveLength(9);
    expect(svc.deliveries(good.id)).toHaveLength(1);
    expect(svc.deliveries(bad.id)).toHaveLength(9);
  });

  test('retries due at the same instant go out together (bounded by maxInFlight), and advance() waits for all', async () => {
    let concurrent = 0;
    let peak = 0;
    let calls = 0;
    const slowFetch = (async () => {
      calls++;
      concurrent++;
      peak = Math.max(peak, concurrent);
      await new Promise((r) => setTimeout(r, 2));
      concurrent--;
      return new Response(null, { status: calls <= 50 ? 503 : 200 });
    }) as unknown as typeof fetch;
    const { bus, clock, svc } = setup(undefined, {
      fetch: slowFetch,
      maxInFlight: 8,
      maxInFlightPerEndpoint: 8,
    });
    const ep = svc.createEndpoint(SHOP_A, { url: 'https://shop.example/hooks' });
    for (let i = 0; i < 50; i++) bus.publish(succeeded());
    await svc.idle();
    expect(calls).toBe(50);
    peak = 0;
    await clock.advance(10 * S);
    // advance() returned only after the whole backlog was attempted, concurrently.
    expect(calls).toBe(100);
    expect(peak).toBe(8);
    const log = svc.deliveries(ep.id);
    expect(log.filter((e) => e.attempt === 2 && e.status_code === 200)).toHaveLength(50);
    expect(clock.nextDue()).toBeUndefined();
  });

  test('the delivery log keeps the newest entries only, oldest first', async () => {
    const { bus, stub, svc } = setup(undefined, { logLimit: 5 });
    const ep = svc.createEndpoint(SHOP_A, { url: 'https://shop.example/hooks' });
    for (let i = 0; i < 12; i++) bus.publish(succeeded({ at: T0 + i * S }));
    await svc.idle();
    const log = svc.deliveries(ep.id);
    expect(log).toHaveLength(5);
    const sentIds = stub.seen.map((r) => r.headers['x-psp-event-id']);
    expect(log.map((e) => e.event_id)).toEqual(sentIds.slice(7));
  });

  test('close() cancels pending retries', async () => {
    const { bus, clock, attemptTimes, svc } = setup(() => new Response(null, { status: 500 }));
    svc.createEndpoint(SHOP_A, { url: 'https://shop.example/hooks' });
    bus.publish(succeeded());
    await svc.idle();
    expect(clock.nextDue()).toBe(T0 + 10 * S);
    await svc.close();
    expect(clock.nextDue()).toBeUndefined();
    await clock.advance(4 * 24 * H);
    expect(attemptTimes).toHaveLength(1);
    // Events published after close go nowhere.
    bus.publish(succeeded());
    await svc.idle();
    expect(attemptTimes).toHaveLength(1);
  });
});
