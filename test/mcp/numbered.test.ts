import { afterEach, describe, expect, it, vi } from 'vitest';
import { Numbered } from '../../src/mcp/numbered.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('Numbered (the event buffer and the webhook inbox)', () => {
  it('numbers from 1 and keeps only the newest `max`', () => {
    const list = new Numbered<{ n: string }>(2);
    expect([list.last, list.first]).toEqual([0, 1]);
    for (const n of ['a', 'b', 'c']) list.push({ n });
    expect(list.after(0)).toEqual([
      { seq: 2, n: 'b' },
      { seq: 3, n: 'c' },
    ]);
    expect([list.last, list.first]).toEqual([3, 2]);
    expect(list.after(3)).toEqual([]);
  });

  it('a wait ends when an item comes after the cursor, at once when one is there, after waitMs, or on wake()', async () => {
    vi.useFakeTimers();
    const list = new Numbered<{ n: number }>(5);
    let woken = false;
    const waiting = list.wait(0, 60_000).then(() => {
      woken = true;
    });
    await vi.advanceTimersByTimeAsync(1000);
    expect(woken).toBe(false);
    list.push({ n: 1 });
    await waiting;
    expect(woken).toBe(true);
    await list.wait(0, 60_000); // item 1 is after 0: no wait
    let timedOut = false;
    const idle = list.wait(1, 5000).then(() => {
      timedOut = true;
    });
    await vi.advanceTimersByTimeAsync(4999);
    expect(timedOut).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await idle;
    const closing = list.wait(1, 60_000);
    list.wake(); // the feed ended
    await closing;
    expect(vi.getTimerCount()).toBe(0);
  });
});
