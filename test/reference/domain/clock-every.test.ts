import { afterEach, describe, expect, test, vi } from 'vitest';
import { ManualClock, RealClock } from '../../../src/reference/domain/clock.js';

// The heartbeat's timer: a repeating timer on the service clock whose periods, when several fall due at once,
// run once (issue 13.9: a ten-year advance with one stream open used to fire 12.6 million heartbeats).

afterEach(() => {
  vi.useRealTimers();
});

const T0 = Date.UTC(2026, 0, 1);

describe('ManualClock.every', () => {
  test('runs once per advance at the last period that fell due, and keeps its grid', async () => {
    const clock = new ManualClock(T0);
    const runs: number[] = [];
    const timer = clock.every(1_000, () => {
      runs.push(clock.now() - T0);
    });
    await clock.advance(999);
    expect(runs).toEqual([]);
    await clock.advance(1);
    expect(runs).toEqual([1_000]);
    await clock.advance(10 * 365 * 24 * 3600 * 1000 + 500);
    expect(runs).toHaveLength(2);
    expect(runs[1]).toBe(10 * 365 * 24 * 3600 * 1000 + 1_000);
    expect(clock.nextDue()).toBe(T0 + runs[1]! + 1_000);
    timer.cancel();
    await clock.advance(5_000);
    expect(runs).toHaveLength(2);
    expect(clock.nextDue()).toBeUndefined();
  });

  test('takes its place among one-shot timers by due time; a one-shot chain still fires every link', async () => {
    const clock = new ManualClock(T0);
    const order: string[] = [];
    clock.every(10, () => {
      order.push(`beat@${clock.now() - T0}`);
    });
    const chain = (n: number) =>
      clock.setTimer(4, () => {
        order.push(`link@${clock.now() - T0}`);
        if (n > 1) chain(n - 1);
      });
    chain(3);
    clock.setTimer(25, () => {
      order.push(`late@${clock.now() - T0}`);
    });
    await clock.advance(25);
    expect(order).toEqual(['link@4', 'link@8', 'link@12', 'beat@20', 'late@25']);
  });
});

describe('RealClock.every', () => {
  test('repeats every period until cancelled', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const clock = new RealClock();
    let runs = 0;
    const timer = clock.every(25_000, () => {
      runs++;
    });
    await vi.advanceTimersByTimeAsync(75_000);
    expect(runs).toBe(3);
    timer.cancel();
    await vi.advanceTimersByTimeAsync(75_000);
    expect(runs).toBe(3);
    clock.dispose();
  });
});
