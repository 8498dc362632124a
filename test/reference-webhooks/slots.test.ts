import { describe, expect, it } from 'vitest';
import { ReceiverSlots } from '../../src/reference/webhooks/slots.js';

// The dispatcher's per-receiver bound, on its own: which job may start, which parks, and who gets a freed slot.

describe('ReceiverSlots', () => {
  it('gives each target at most `limit` slots; the rest park in order and move to ready as slots end', () => {
    const slots = new ReceiverSlots<string>(2);
    expect(['a1', 'a2', 'a3', 'a4'].map((j) => slots.take('a', j))).toEqual([true, true, false, false]);
    expect(slots.take('b', 'b1')).toBe(true); // another receiver is not held up by a's bound
    expect(slots.ready.size).toBe(0);
    slots.release('a');
    expect(slots.ready.shift()).toBe('a3');
    // A promoted job takes the slot the ended request left.
    expect(slots.take('a', 'a3')).toBe(true);
    slots.release('a');
    slots.release('a');
    expect(slots.ready.shift()).toBe('a4');
    expect(slots.ready.shift()).toBeUndefined();
  });

  it('passes on the slot of a promoted job that was dropped, so the next parked job is not stranded', () => {
    const slots = new ReceiverSlots<string>(1);
    slots.take('a', 'running');
    slots.take('a', 'cancelled');
    slots.take('a', 'behind');
    slots.release('a');
    expect(slots.ready.shift()).toBe('cancelled');
    slots.passOn('a'); // the dispatcher dropped it instead of starting it
    expect(slots.ready.shift()).toBe('behind');
  });

  it('passes nothing on while the target is still at its bound', () => {
    const slots = new ReceiverSlots<string>(1);
    slots.take('a', 'running');
    slots.take('a', 'parked');
    slots.passOn('a');
    expect(slots.ready.size).toBe(0);
  });

  it('drain hands over every waiting job, ready and parked, once', () => {
    const slots = new ReceiverSlots<string>(1);
    slots.take('a', 'a1');
    slots.take('a', 'a2');
    slots.take('a', 'a3');
    slots.take('b', 'b1');
    slots.take('b', 'b2');
    slots.release('a');
    const settled: string[] = [];
    slots.drain((job) => settled.push(job));
    expect(settled.sort()).toEqual(['a2', 'a3', 'b2']);
    slots.drain((job) => settled.push(job));
    expect(settled).toHaveLength(3);
  });
});
