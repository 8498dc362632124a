import { describe, expect, it } from 'vitest';
import { Fifo } from '../../../src/reference/util/fifo.js';

// The queue behind the webhook dispatcher and the SSE web stream sink.

describe('Fifo', () => {
  it('hands items back in order across its compactions, and counts what waits', () => {
    const q = new Fifo<number>();
    for (let i = 0; i < 5_000; i++) q.push(i);
    const out: number[] = [];
    for (let i = 0; i < 3_000; i++) out.push(q.shift()!);
    for (let i = 5_000; i < 6_000; i++) q.push(i);
    expect(q.size).toBe(3_000);
    q.drain((n) => out.push(n));
    expect(out).toEqual(Array.from({ length: 6_000 }, (_, i) => i));
    expect(q.size).toBe(0);
    expect(q.shift()).toBeUndefined();
  });

  it('clear forgets every item', () => {
    const q = new Fifo<string>();
    q.push('a');
    q.push('b');
    q.shift();
    q.clear();
    expect(q.size).toBe(0);
    expect(q.shift()).toBeUndefined();
    q.push('c');
    expect(q.shift()).toBe('c');
  });
});
