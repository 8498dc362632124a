import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { DeliveryLog } from '../../../src/reference/webhooks/log.js';

const T0 = Date.UTC(2026, 4, 6);

describe('DeliveryLog', () => {
  test('keeps exactly the newest `limit` attempts, oldest first, whatever the sequence', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 0, max: 100 }), (limit, count) => {
        const log = new DeliveryLog(limit);
        for (let i = 0; i < count; i++)
          log.add({
            eventId: `evt_${i}`,
            event: 'payment.succeeded',
            attempt: 1,
            status: 200,
            error: null,
            at: T0 + i,
            next: null,
          });
        const items = log.list();
        const expected = Array.from({ length: count }, (_, i) => `evt_${i}`).slice(
          Math.max(0, count - limit),
        );
        expect(items.map((e) => e.event_id)).toEqual(expected);
        expect(log.size).toBe(Math.min(limit, count));
      }),
    );
  });

  test('lists the contract shape with RFC 3339 times, and copies (callers cannot change the log)', () => {
    const log = new DeliveryLog(10);
    log.add({
      eventId: 'evt_1',
      event: 'payout.failed',
      attempt: 2,
      status: null,
      error: 'HTTP 500',
      at: T0,
      next: T0 + 60_000,
    });
    const [entry] = log.list();
    expect(entry).toEqual({
      event_id: 'evt_1',
      event: 'payout.failed',
      attempt: 2,
      status_code: null,
      error: 'HTTP 500',
      at: '2026-05-06T00:00:00.000Z',
      next_attempt_at: '2026-05-06T00:01:00.000Z',
    });
    entry!.attempt = 99;
    expect(log.list()[0]!.attempt).toBe(2);
  });
});
