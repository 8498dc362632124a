import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/reference/domain/clock.js';
import { Domain } from '../../../src/reference/domain/core.js';
import type { DomainEvent } from '../../../src/reference/domain/events.js';
import { responseSchemas } from '../../../src/schemas/resources.js';

function world() {
  const clock = new ManualClock(Date.parse('2026-05-06T10:00:00.000Z'));
  const domain = new Domain({ clock });
  const events: DomainEvent[] = [];
  domain.bus.subscribe((e) => events.push(e));
  const m = domain.accounts.createMerchant('Events');
  const caller = domain.caller(m.key);
  return { clock, domain, events, caller, m };
}

const strict = responseSchemas(true);

describe('DomainEvents on the bus', () => {
  it('publishes payment.created and every status change with wire snapshots', () => {
    const { domain, events, caller, m } = world();
    const created = domain.payments.create(
      caller,
      { amount: 1000, webhook_url: 'https://hook.example/x' },
      undefined,
      'http://x',
    );
    const id = created.body.payment.id;
    domain.payments.buyerAct(id, 'pay');
    expect(events.map((e) => e.type)).toEqual([
      'payment.created',
      'payment.status_changed',
      'payment.status_changed',
    ]);
    const [c, toProcessing, toSucceeded] = events;
    expect(c).toMatchObject({
      type: 'payment.created',
      merchantId: m.merchant.id,
      shopId: m.shop.id,
      webhookUrl: 'https://hook.example/x',
    });
    expect(toProcessing).toMatchObject({ from: 'pending', to: 'processing' });
    expect(toSucceeded).toMatchObject({ from: 'processing', to: 'succeeded' });
    for (const e of events) {
      if ('payment' in e) expect(strict.Payment.safeParse(e.payment).success).toBe(true);
    }
    if (toSucceeded?.type === 'payment.status_changed') expect(toSucceeded.payment.status).toBe('succeeded');
  });

  it('publishes refund.created with the payment snapshot, then refunded as a status change', () => {
    const { domain, events, caller } = world();
    const id = domain.payments.create(caller, { amount: 500 }, undefined, 'http://x').body.payment.id;
    domain.payments.move(domain.payments.get(id), 'succeeded');
    events.length = 0;
    domain.refunds.create(caller, id, { amount: 200 }, undefined);
    domain.refunds.create(caller, id, {}, undefined);
    expect(events.map((e) => e.type)).toEqual(['refund.created', 'refund.created', 'payment.status_changed']);
    const first = events[0];
    if (first?.type !== 'refund.created') throw new Error('expected refund.created');
    expect(strict.Refund.safeParse(first.refund).success).toBe(true);
    expect(first.payment.amount_refunded).toBe(200);
    expect(first.payment.refunds).toHaveLength(1);
    expect(events[2]).toMatchObject({ from: 'succeeded', to: 'refunded' });
  });

  it('publishes a refusal at creation as created then failed', () => {
    const { domain, events, caller } = world();
    domain.payments.create(caller, { amount: 902 }, undefined, 'http://x');
    expect(events.map((e) => (e.type === 'payment.status_changed' ? `${e.from}->${e.to}` : e.type))).toEqual([
      'payment.created',
      'pending->failed',
    ]);
  });

  it('publishes payout.created and payout.status_changed when the delay passes', async () => {
    const { domain, events, caller, clock } = world();
    domain.payouts.create(caller, { amount: 100, phone: '+79990000000', bank_id: '100000000111' }, undefined);
    expect(events.map((e) => e.type)).toEqual(['payout.created']);
    await clock.advance(5000);
    expect(events[1]).toMatchObject({ type: 'payout.status_changed', from: 'pending', to: 'succeeded' });
    if (events[1]?.type === 'payout.status_changed') {
      expect(strict.Payout.safeParse(events[1].payout).success).toBe(true);
      expect(events[1].at).toBe(Date.parse('2026-05-06T10:00:05.000Z'));
    }
  });

  it('publishes expiry on the service clock and nothing for a refused move', async () => {
    const { domain, events, caller, clock } = world();
    const id = domain.payments.create(caller, { amount: 100 }, undefined, 'http://x').body.payment.id;
    await clock.advance(30 * 60_000);
    expect(events.at(-1)).toMatchObject({ type: 'payment.status_changed', to: 'expired' });
    const n = events.length;
    expect(() => domain.payments.move(domain.payments.get(id), 'succeeded')).toThrow(/cannot become/);
    expect(events).toHaveLength(n);
  });

  it('keeps one clock timer however many payments wait for expiry', () => {
    const { domain, caller } = world();
    for (let i = 0; i < 1000; i++) domain.payments.create(caller, { amount: 100 }, undefined, 'http://x');
    expect(domain.scheduler.size).toBe(1000);
    const clock = domain.clock as ManualClock;
    expect(clock.nextDue()).toBe(Date.parse('2026-05-06T10:30:00.000Z'));
  });
});
