import { describe, expect, test } from 'vitest';
import { DomainError } from '../../../src/reference/domain/errors.js';
import {
  hmac,
  payment,
  paymentChanged,
  payout,
  payoutChanged,
  refund,
  SHOP_A,
  SHOP_B,
  stubbedServicePerTest,
  succeeded,
  T0,
} from './helpers.js';

const H = 3_600_000;
const setup = stubbedServicePerTest();

const eventsAt = (seen: { url: string; body: string }[], url: string) =>
  seen.filter((r) => r.url === url).map((r) => JSON.parse(r.body).event);

describe('which events go where', () => {
  test('every webhook event of spec 6.1 is emitted where the spec says, and nothing else is', async () => {
    const { bus, seen, svc } = setup();
    svc.createEndpoint(SHOP_A, { url: 'https://a.example/all' });
    const p = payment({ status: 'pending' });
    bus.publish({
      type: 'payment.created',
      at: T0,
      merchantId: p.merchant_id,
      shopId: SHOP_A,
      payment: p,
      webhookUrl: null,
    });
    bus.publish(paymentChanged(p, 'pending', 'processing'));
    for (const to of ['succeeded', 'failed', 'cancelled', 'expired'])
      bus.publish(paymentChanged(p, 'pending', to));
    const paid = payment();
    bus.publish({
      type: 'refund.created',
      at: T0,
      merchantId: paid.merchant_id,
      shopId: SHOP_A,
      refund: refund(paid, 100),
      payment: paid,
      webhookUrl: null,
    });
    bus.publish({
      type: 'refund.created',
      at: T0,
      merchantId: paid.merchant_id,
      shopId: SHOP_A,
      refund: refund(paid, 200),
      payment: paid,
      webhookUrl: null,
    });
    bus.publish(paymentChanged(paid, 'succeeded', 'refunded'));
    const po = payout({ status: 'pending' });
    bus.publish({ type: 'payout.created', at: T0, merchantId: po.merchant_id, shopId: SHOP_A, payout: po });
    bus.publish(payoutChanged(po, 'pending', 'succeeded'));
    bus.publish(payoutChanged(po, 'pending', 'failed'));
    await svc.idle();
    expect(seen.map((r) => JSON.parse(r.body).event)).toEqual([
      'payment.succeeded',
      'payment.failed',
      'payment.cancelled',
      'payment.expired',
      'payment.refunded',
      'payment.refunded',
      'payout.succeeded',
      'payout.failed',
    ]);
    // Each event has its own id.
    expect(new Set(seen.map((r) => JSON.parse(r.body).id)).size).toBe(8);
  });

  test('the body is { id, event, created_at, data } and data equals the GET snapshot, plus shop_id for payments', async () => {
    const { bus, seen, svc } = setup();
    svc.createEndpoint(SHOP_A, { url: 'https://a.example/all' });
    const p = payment({ status: 'succeeded', amount_refunded: 300 });
    const r = refund(p, 300);
    const after = { ...p, refunds: [r] };
    bus.publish({
      type: 'refund.created',
      at: T0 + 1234,
      merchantId: p.merchant_id,
      shopId: SHOP_A,
      refund: r,
      payment: after,
      webhookUrl: null,
    });
    const po = payout();
    bus.publish(payoutChanged(po, 'pending', 'succeeded', { at: T0 + 5000 }));
    await svc.idle();
    const [first, second] = seen.map((s) => JSON.parse(s.body));
    expect(Object.keys(first)).toEqual(['id', 'event', 'created_at', 'data']);
    expect(first.id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(first.event).toBe('payment.refunded');
    expect(first.created_at).toBe(new Date(T0 + 1234).toISOString());
    expect(first.data).toEqual({ ...after, shop_id: SHOP_A });
    expect(second.event).toBe('payout.succeeded');
    expect(second.data).toEqual({ ...po, status: 'succeeded' });
    expect(second.data).not.toHaveProperty('shop_id');
    expect(seen[0]?.headers['x-psp-event-id']).toBe(first.id);
  });

  test('the filter is strict: an endpoint gets exactly the events it selected; empty or absent takes all', async () => {
    const { bus, seen, svc } = setup();
    svc.createEndpoint(SHOP_A, {
      url: 'https://a.example/only-failed',
      events: ['payment.failed', 'payout.failed'],
    });
    svc.createEndpoint(SHOP_A, { url: 'https://a.example/empty', events: [] });
    svc.createEndpoint(SHOP_A, { url: 'https://a.example/absent' });
    const p = payment();
    for (const to of ['succeeded', 'failed', 'cancelled', 'expired'])
      bus.publish(paymentChanged(p, 'pending', to));
    bus.publish(payoutChanged(payout(), 'pending', 'succeeded'));
    bus.publish(payoutChanged(payout(), 'pending', 'failed'));
    await svc.idle();
    expect(eventsAt(seen, 'https://a.example/only-failed')).toEqual(['payment.failed', 'payout.failed']);
    const all = [
      'payment.succeeded',
      'payment.failed',
      'payment.cancelled',
      'payment.expired',
      'payout.succeeded',
      'payout.failed',
    ];
    expect(eventsAt(seen, 'https://a.example/empty')).toEqual(all);
    expect(eventsAt(seen, 'https://a.example/absent')).toEqual(all);
  });

  test("events of one shop never reach another shop's endpoint", async () => {
    const { bus, seen, svc } = setup();
    const a = svc.createEndpoint(SHOP_A, { url: 'https://a.example/hooks' });
    const b = svc.createEndpoint(SHOP_B, { url: 'https://b.example/hooks' });
    bus.publish(succeeded({ shopId: SHOP_A }));
    bus.publish(succeeded({ shopId: SHOP_A }));
    bus.publish(succeeded({ shopId: SHOP_B }));
    bus.publish(payoutChanged(payout(), 'pending', 'failed', { shopId: SHOP_B }));
    await svc.idle();
    const shopsAt = (url: string) =>
      seen.filter((r) => r.url === url).map((r) => JSON.parse(r.body).data.shop_id);
    expect(shopsAt('https://a.example/hooks')).toEqual([SHOP_A, SHOP_A]);
    expect(eventsAt(seen, 'https://b.example/hooks')).toEqual(['payment.succeeded', 'payout.failed']);
    expect(shopsAt('https://b.example/hooks')[0]).toBe(SHOP_B);
    expect(svc.deliveries(a.id)).toHaveLength(2);
    expect(svc.deliveries(b.id)).toHaveLength(2);
    // A shop without endpoints gets nothing, and nothing leaks to the others.
    bus.publish(succeeded({ shopId: 'another-shop' }));
    await svc.idle();
    expect(seen).toHaveLength(4);
  });

  test("a payment's webhook_url replaces the shop's endpoints and is signed with the oldest endpoint's secret", async () => {
    const { bus, seen, svc } = setup();
    const oldest = svc.createEndpoint(SHOP_A, { url: 'https://a.example/one', events: ['payment.failed'] });
    svc.createEndpoint(SHOP_A, { url: 'https://a.example/two', signature_version: 'v1' });
    bus.publish(succeeded({ webhookUrl: 'https://order.example/cb?o=1' }));
    await svc.idle();
    expect(seen.map((r) => r.url)).toEqual(['https://order.example/cb?o=1']);
    const [req] = seen;
    const t = req!.headers['x-psp-timestamp'];
    expect(req!.headers['x-psp-signature']).toBe(
      `t=${t},v1=${hmac(oldest.secret, `${t}.${req!.body}`)},v2=${hmac(oldest.secret, `${t}.${req!.body}`)}`,
    );
    // The override is logged under the endpoint whose secret signed it.
    expect(svc.deliveries(oldest.id)).toHaveLength(1);
    // Other payments of the shop still go to the shop's endpoints.
    bus.publish(succeeded());
    await svc.idle();
    expect(seen.slice(1).map((r) => r.url)).toEqual(['https://a.example/two']);
  });

  test('a logger that throws does not stop delivery or retries', async () => {
    const { bus, clock, stub, svc } = setup(() => new Response(null, { status: 500 }), {
      logger: () => {
        throw new Error('log sink down');
      },
    });
    const ep = svc.createEndpoint(SHOP_A, { url: 'https://a.example/hooks' });
    bus.publish(succeeded());
    bus.publish(succeeded({ webhookUrl: 'https://order.example/cb', shopId: SHOP_B }));
    await svc.idle();
    await clock.advance(10_000);
    expect(stub.seen).toHaveLength(2);
    expect(svc.deliveries(ep.id)).toHaveLength(2);
  });

  test('webhook_url with no endpoint in the shop: not delivered, and the log says why', async () => {
    const { bus, seen, svc, lines } = setup();
    svc.createEndpoint(SHOP_B, { url: 'https://b.example/hooks' });
    bus.publish(succeeded({ webhookUrl: 'https://order.example/cb' }));
    await svc.idle();
    expect(seen).toHaveLength(0);
    expect(lines.join('\n')).toMatch(/not delivered.*webhook_url.*no webhook endpoint/);
  });
});

describe('rotation, deletion and resend', () => {
  test('rotating mid-retry: the next attempt is signed with the new secret, the old one never again', async () => {
    const { bus, clock, seen, svc } = setup(() => new Response(null, { status: 500 }));
    const ep = svc.createEndpoint(SHOP_A, { url: 'https://a.example/hooks' });
    bus.publish(succeeded());
    await svc.idle();
    const { secret } = svc.rotateSecret(ep.id);
    expect(secret).not.toBe(ep.secret);
    await clock.advance(10_000);
    await clock.advance(60_000);
    expect(seen).toHaveLength(3);
    const v2 = (r: (typeof seen)[number], key: string) =>
      `v2=${hmac(key, `${r.headers['x-psp-timestamp']}.${r.body}`)}`;
    expect(seen[0]!.headers['x-psp-signature']).toContain(v2(seen[0]!, ep.secret));
    for (const r of seen.slice(1)) {
      expect(r.headers['x-psp-signature']).toContain(v2(r, secret));
      expect(r.headers['x-psp-signature']).not.toContain(hmac(ep.secret, r.body));
    }
  });

  test('rotation also re-keys pending webhook_url retries signed by that endpoint', async () => {
    const { bus, clock, seen, svc } = setup(() => new Response(null, { status: 500 }));
    const ep = svc.createEndpoint(SHOP_A, { url: 'https://a.example/hooks', signature_version: 'v1' });
    bus.publish(succeeded({ webhookUrl: 'https://order.example/cb' }));
    await svc.idle();
    const { secret } = svc.rotateSecret(ep.id);
    await clock.advance(10_000);
    expect(seen.map((r) => r.headers['x-psp-signature'])).toEqual([
      `sha256=${hmac(ep.secret, seen[0]!.body)}`,
      `sha256=${hmac(secret, seen[1]!.body)}`,
    ]);
  });

  test('deleting mid-retry: no more attempts, and the endpoint is gone', async () => {
    const { bus, clock, seen, svc } = setup(() => new Response(null, { status: 500 }));
    const ep = svc.createEndpoint(SHOP_A, { url: 'https://a.example/hooks' });
    const other = svc.createEndpoint(SHOP_A, { url: 'https://a.example/other' });
    bus.publish(succeeded());
    await svc.idle();
    await clock.advance(10_000);
    expect(seen).toHaveLength(4);
    svc.deleteEndpoint(ep.id);
    await clock.advance(5 * 24 * H);
    expect(seen.filter((r) => r.url === 'https://a.example/hooks')).toHaveLength(2);
    expect(seen.filter((r) => r.url === 'https://a.example/other')).toHaveLength(9);
    expect(() => svc.deliveries(ep.id)).toThrow(DomainError);
    expect(() => svc.deleteEndpoint(ep.id)).toThrow(
      expect.objectContaining({ status: 404, code: 'not_found' }),
    );
    expect(() => svc.rotateSecret(ep.id)).toThrow(expect.objectContaining({ status: 404 }));
    // New events skip the deleted endpoint.
    bus.publish(succeeded());
    await svc.idle();
    expect(seen.at(-1)!.url).toBe('https://a.example/other');
    expect(svc.deliveries(other.id)).toHaveLength(10);
  });

  test('deleting the endpoint cancels its retry timers outright', async () => {
    const { bus, clock, svc } = setup(() => new Response(null, { status: 500 }));
    const ep = svc.createEndpoint(SHOP_A, { url: 'https://a.example/hooks' });
    for (let i = 0; i < 3; i++) bus.publish(succeeded());
    await svc.idle();
    expect(clock.nextDue()).toBe(T0 + 10_000);
    expect(svc.stats().pending).toBe(3);
    svc.deleteEndpoint(ep.id);
    expect(clock.nextDue()).toBeUndefined();
    expect(svc.stats().pending).toBe(0);
  });

  test('deleting the only endpoint stops pending webhook_url retries it was signing', async () => {
    const { bus, clock, seen, svc, lines } = setup(() => new Response(null, { status: 500 }));
    const ep = svc.createEndpoint(SHOP_A, { url: 'https://a.example/hooks' });
    bus.publish(succeeded({ webhookUrl: 'https://order.example/cb' }));
    await svc.idle();
    svc.deleteEndpoint(ep.id);
    await clock.advance(5 * 24 * H);
    expect(seen).toHaveLength(1);
    expect(lines.join('\n')).toMatch(/stopped: the shop has no webhook endpoint left/);
  });

  test('resend: same evt_ id and body, a fresh series of attempts', async () => {
    let fail = true;
    const { bus, clock, seen, svc } = setup(() => new Response(null, { status: fail ? 500 : 200 }));
    const ep = svc.createEndpoint(SHOP_A, { url: 'https://a.example/hooks' });
    bus.publish(succeeded());
    await svc.idle();
    await clock.advance(5 * 24 * H);
    expect(seen).toHaveLength(9);
    const id = seen[0]!.headers['x-psp-event-id']!;
    fail = false;
    svc.resend(id);
    await svc.idle();
    expect(seen).toHaveLength(10);
    expect(seen[9]!.headers['x-psp-event-id']).toBe(id);
    expect(seen[9]!.body).toBe(seen[0]!.body);
    const last = svc.deliveries(ep.id).at(-1)!;
    expect(last).toMatchObject({
      event_id: id,
      attempt: 1,
      status_code: 200,
      error: null,
      next_attempt_at: null,
    });
    expect(last.at).toBe(new Date(T0 + 5 * 24 * H).toISOString());
  });

  test('resend while a retry is pending replaces the series instead of doubling it', async () => {
    const { bus, clock, seen, svc } = setup(() => new Response(null, { status: 500 }));
    svc.createEndpoint(SHOP_A, { url: 'https://a.example/hooks' });
    bus.publish(succeeded());
    await svc.idle();
    await clock.advance(10_000);
    svc.resend(seen[0]!.headers['x-psp-event-id']!);
    await svc.idle();
    expect(seen).toHaveLength(3);
    await clock.advance(10 * 24 * H);
    // 2 attempts of the first series, then a full fresh series of 9.
    expect(seen).toHaveLength(11);
  });

  test('resend with no endpoint left to take the event sends nothing and says so', async () => {
    const { bus, seen, svc, lines } = setup();
    const ep = svc.createEndpoint(SHOP_A, { url: 'https://a.example/hooks', events: ['payment.succeeded'] });
    bus.publish(succeeded());
    await svc.idle();
    svc.deleteEndpoint(ep.id);
    svc.createEndpoint(SHOP_A, { url: 'https://a.example/failed-only', events: ['payment.failed'] });
    svc.resend(seen[0]!.headers['x-psp-event-id']!);
    await svc.idle();
    expect(seen).toHaveLength(1);
    expect(lines.at(-1)).toMatch(/resend: no endpoint of the shop takes it now/);
  });

  test('resend of an unknown event is a 404 and changes nothing', async () => {
    const { seen, svc } = setup();
    svc.createEndpoint(SHOP_A, { url: 'https://a.example/hooks' });
    expect(() => svc.resend('evt_nope')).toThrow(expect.objectContaining({ status: 404, code: 'not_found' }));
    await svc.idle();
    expect(seen).toHaveLength(0);
  });

  test('events older than the kept history cannot be resent', async () => {
    const { bus, stub, svc } = setup(undefined, { historyLimit: 3 });
    svc.createEndpoint(SHOP_A, { url: 'https://a.example/hooks' });
    for (let i = 0; i < 5; i++) bus.publish(succeeded());
    await svc.idle();
    const ids = stub.seen.map((r) => r.headers['x-psp-event-id']!);
    expect(() => svc.resend(ids[0]!)).toThrow(expect.objectContaining({ status: 404 }));
    expect(() => svc.resend(ids[1]!)).toThrow(expect.objectContaining({ status: 404 }));
    svc.resend(ids[4]!);
    expect(svc.eventShop(ids[4]!)).toBe(SHOP_A);
    await svc.idle();
    expect(stub.seen).toHaveLength(6);
  });
});
