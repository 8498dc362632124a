import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src/reference/domain/idempotency.js';
import { ManualClock } from '../../../src/reference/domain/clock.js';
import { isAllowed, isValidAllowEntry } from '../../../src/reference/domain/ip-allow.js';
import { RateLimiter } from '../../../src/reference/domain/rate-limit.js';
import { Scheduler } from '../../../src/reference/domain/scheduler.js';

describe('Scheduler', () => {
  it('fires deadlines in time order, then creation order, each at its own time', async () => {
    const clock = new ManualClock(0);
    const s = new Scheduler(clock);
    const seen: string[] = [];
    s.at(300, () => seen.push(`c@${clock.now()}`));
    s.at(100, () => seen.push(`a@${clock.now()}`));
    s.at(100, () => seen.push(`b@${clock.now()}`));
    s.at(200, () => s.at(250, () => seen.push(`nested@${clock.now()}`)));
    await clock.advance(299);
    expect(seen).toEqual(['a@100', 'b@100', 'nested@250']);
    await clock.advance(1);
    expect(seen.at(-1)).toBe('c@300');
    expect(s.size).toBe(0);
  });

  it('keeps going when a deadline throws, and stops on close', async () => {
    const clock = new ManualClock(0);
    const s = new Scheduler(clock);
    const seen: number[] = [];
    s.at(1, () => {
      throw new Error('boom');
    });
    s.at(2, () => seen.push(2));
    s.at(5, () => seen.push(5));
    await clock.advance(3);
    s.close();
    await clock.advance(10);
    expect(seen).toEqual([2]);
  });
});

describe('RateLimiter', () => {
  it('admits limit requests per window and rounds Retry-After up', () => {
    let now = 0;
    const rl = new RateLimiter(() => now);
    const setting = { limit: 2, window_seconds: 3 };
    expect(rl.admit('m', setting).ok).toBe(true);
    expect(rl.admit('m', setting).ok).toBe(true);
    now = 100;
    expect(rl.admit('m', setting)).toEqual({ ok: false, retryAfterSeconds: 3 });
    now = 2001;
    expect(rl.admit('m', setting)).toEqual({ ok: false, retryAfterSeconds: 1 });
    now = 3000;
    expect(rl.admit('m', setting).ok).toBe(true);
  });
});

describe('IP allow-list matching', () => {
  it('validates entries', () => {
    for (const ok of ['1.2.3.4', '10.0.0.0/8', '::1', '2001:db8::/32', '::ffff:1.2.3.4'])
      expect(isValidAllowEntry(ok)).toBe(true);
    for (const bad of ['1.2.3', '0x7f.1', '1.2.3.4/40', '2001:db8::/129', 'host', ''])
      expect(isValidAllowEntry(bad)).toBe(false);
  });

  it('matches plain and mapped addresses, and fails closed on garbage', () => {
    expect(isAllowed(['127.0.0.1'], '::ffff:127.0.0.1')).toBe(true);
    expect(isAllowed(['::ffff:127.0.0.0/104'], '127.9.9.9')).toBe(true);
    expect(isAllowed(['fe80::1'], 'fe80::1%eth0')).toBe(true);
    expect(isAllowed(['127.0.0.1'], 'not an ip')).toBe(false);
    expect(isAllowed([], undefined)).toBe(true);
  });
});

describe('canonicalJson', () => {
  it('ignores key order and whitespace, not values', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[1,{"x":1,"y":2}]},"b":1}',
    );
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: '1' }));
  });
});
