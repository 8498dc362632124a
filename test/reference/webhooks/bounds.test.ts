import { describe, expect, test } from 'vitest';
import type { OutgoingWebhook } from '../../../src/reference/webhooks/events.js';
import { EventHistory } from '../../../src/reference/webhooks/history.js';
import type { Payment } from '../../../src/schemas/resources.js';
import { PendingBound } from '../../../src/reference/webhooks/pending.js';
import { payment, SHOP_A, SHOP_B, stubbedServicePerTest, succeeded, T0 } from './helpers.js';

// Issue 13, hole 1 (the webhook service's share): what is kept for resend is bounded by bytes and count and holds
// only events that went somewhere; the pending series of an endpoint that is down are bounded, the oldest given up
// with a delivery-log entry that says so.

const stubbed = stubbedServicePerTest();

const event = (id: string, bytes: number): OutgoingWebhook => ({
  id,
  event: 'payment.succeeded',
  shopId: SHOP_A,
  webhookUrl: null,
  body: new Uint8Array(bytes),
});

describe('EventHistory', () => {
  test('keeps the newest events within the byte budget, dropping the oldest first', () => {
    const h = new EventHistory(1_000, 100);
    h.add(event('a', 400));
    h.add(event('b', 400));
    expect({ size: h.size, bytes: h.bytes }).toEqual({ size: 2, bytes: 800 });
    h.add(event('c', 300)); // 1,100 > 1,000: a goes
    expect({ size: h.size, bytes: h.bytes }).toEqual({ size: 2, bytes: 700 });
    expect([h.get('a'), h.get('b')?.id, h.get('c')?.id]).toEqual([undefined, 'b', 'c']);
    h.add(event('d', 300)); // exactly 1,000: nothing goes
    expect({ size: h.size, bytes: h.bytes }).toEqual({ size: 3, bytes: 1_000 });
  });

  test('keeps at most the given number of events', () => {
    const h = new EventHistory(1_000_000, 3);
    for (const id of ['a', 'b', 'c', 'd', 'e']) h.add(event(id, 10));
    expect({ size: h.size, bytes: h.bytes }).toEqual({ size: 3, bytes: 30 });
    expect(h.get('b')).toBeUndefined();
    expect(h.get('c')?.id).toBe('c');
  });

  test('a body larger than the whole budget is not kept and pushes nothing out', () => {
    const h = new EventHistory(1_000, 100);
    h.add(event('a', 600));
    h.add(event('huge', 1_001));
    expect({ size: h.size, bytes: h.bytes, huge: h.get('huge') }).toEqual({
      size: 1,
      bytes: 600,
      huge: undefined,
    });
  });
});

describe('PendingBound', () => {
  const item = (bytes: number) => ({ bytes });

  test('gives up the oldest of a group beyond the count, and counts bytes exactly', () => {
    const bound = new PendingBound<{ bytes: number }>(2, 1_000_000);
    const [a, b, c] = [item(10), item(20), item(30)];
    expect(bound.add('ep', a)).toEqual([]);
    expect(bound.add('ep', b)).toEqual([]);
    expect(bound.add('ep', c)).toEqual([a]);
    expect(bound.of('ep')).toEqual({ count: 2, bytes: 50 });
    expect(bound.add('other', item(5))).toEqual([]); // groups are apart
    bound.remove('ep', b);
    bound.remove('ep', b); // twice is harmless
    expect(bound.of('ep')).toEqual({ count: 1, bytes: 30 });
    bound.remove('ep', c);
    expect(bound.of('ep')).toEqual({ count: 0, bytes: 0 });
  });

  test('gives up as many of the oldest as the byte budget needs, never the newest', () => {
    const bound = new PendingBound<{ bytes: number }>(100, 100);
    const [a, b, c] = [item(40), item(40), item(90)];
    bound.add('ep', a);
    bound.add('ep', b);
    expect(bound.add('ep', c)).toEqual([a, b]);
    expect(bound.of('ep')).toEqual({ count: 1, bytes: 90 });
    const huge = item(500);
    expect(bound.add('ep', huge)).toEqual([c]); // alone over the budget, but still attempted
    expect(bound.of('ep')).toEqual({ count: 1, bytes: 500 });
  });
});

/** A receiver that is down: every attempt fails, so with the clock standing still every series stays pending. */
function downService(options: Parameters<typeof stubbed>[1]) {
  return stubbed(() => new Response('down', { status: 503 }), options);
}

/** A {@link downService} that has sent one payment.succeeded of `p` to SHOP_A's endpoint, and that body's size. */
async function oneSent(p: Payment) {
  const made = downService({});
  made.svc.createEndpoint(SHOP_A, { url: 'https://a.example/hooks' });
  made.bus.publish(succeeded({}, p));
  await made.svc.idle();
  return { svc: made.svc, size: Buffer.byteLength(made.stub.seen[0]!.body) };
}

describe('the webhook service keeps only what an endpoint or a resend can use', () => {
  test('no event is kept for a shop without an endpoint, nor for a webhook_url nothing could sign', async () => {
    const { bus, svc } = downService({});
    for (let i = 0; i < 100; i++) bus.publish(succeeded());
    for (let i = 0; i < 100; i++) bus.publish(succeeded({ webhookUrl: 'https://shop.example/hooks' }));
    await svc.idle();
    expect(svc.stats()).toEqual({ pending: 0, inFlight: 0, events: 0, eventBytes: 0 });
  });

  test('an event that went somewhere is kept and counted by its body bytes; the byte budget drops the oldest', async () => {
    const p = payment();
    const { svc, size } = await oneSent(p);
    expect(svc.stats()).toMatchObject({ events: 1, eventBytes: size });
    await svc.close();

    // Room for two bodies of this size.
    const small = downService({ historyBytes: 2 * size + Math.floor(size / 2) });
    small.svc.createEndpoint(SHOP_A, { url: 'https://a.example/hooks' });
    for (let i = 0; i < 3; i++) small.bus.publish(succeeded({}, p));
    await small.svc.idle();
    expect(small.svc.stats()).toMatchObject({ events: 2, eventBytes: 2 * size });
    const ids = small.stub.seen.map((r) => r.headers['x-psp-event-id']!);
    expect(() => small.svc.resend(ids[0]!)).toThrow(expect.objectContaining({ status: 404 }));
    small.svc.resend(ids[1]!);
    small.svc.resend(ids[2]!);
  });
});

describe('pending deliveries to an endpoint that is down are bounded', () => {
  test('1,000 per endpoint: the oldest is given up, logged, and never attempted again', async () => {
    // A log long enough to still show the give-ups after the attempts that follow them.
    const { bus, clock, stub, lines, svc } = downService({ logLimit: 3_000, maxPendingPerEndpoint: 1_000 });
    const down = svc.createEndpoint(SHOP_A, { url: 'https://down.example/hooks' });
    const other = svc.createEndpoint(SHOP_B, { url: 'https://other.example/hooks' });
    bus.publish(succeeded({ shopId: SHOP_B }));
    for (let i = 0; i < 1_000; i++) bus.publish(succeeded());
    await svc.idle(); // each attempted once, failed, waiting for a retry the standing clock never brings
    expect(svc.pendingOf(down.id).count).toBe(1_000);
    for (let i = 0; i < 3; i++) bus.publish(succeeded());
    await svc.idle();
    expect(svc.pendingOf(down.id).count).toBe(1_000);
    expect(svc.pendingOf(other.id).count).toBe(1); // another shop's endpoint is not touched
    expect(svc.stats().pending).toBe(1_001);

    const firstIds = stub.seen
      .filter((r) => r.url.startsWith('https://down'))
      .map((r) => r.headers['x-psp-event-id']);
    const givenUp = svc.deliveries(down.id).filter((e) => e.error?.startsWith('given up'));
    expect(givenUp.map((e) => e.event_id)).toEqual(firstIds.slice(0, 3));
    for (const e of givenUp)
      expect(e).toEqual({
        event_id: e.event_id,
        event: 'payment.succeeded',
        attempt: 2, // the retry that will not be made
        status_code: null,
        error: 'given up: pending limit reached (1000 deliveries or 16777216 bytes per endpoint)',
        at: new Date(T0).toISOString(),
        next_attempt_at: null,
      });
    expect(lines.filter((l) => l.includes('given up: pending limit'))).toHaveLength(3);

    // The first retry falls due: the 1,000 still pending are tried again, the 3 given up are not.
    const before = stub.seen.length;
    await clock.advance(10_000);
    await svc.idle();
    const retried = new Set(stub.seen.slice(before).map((r) => r.headers['x-psp-event-id']));
    expect(retried.size).toBe(1_001);
    for (const e of givenUp) expect(retried.has(e.event_id)).toBe(false);
  });

  test('by bytes: the oldest series go once the bodies they keep alive pass the budget', async () => {
    const p = payment();
    const { svc, size } = await oneSent(p);
    await svc.close();

    const small = downService({ maxPendingBytesPerEndpoint: 3 * size });
    const ep = small.svc.createEndpoint(SHOP_A, { url: 'https://a.example/hooks' });
    for (let i = 0; i < 3; i++) small.bus.publish(succeeded({}, p));
    expect(small.svc.pendingOf(ep.id)).toEqual({ count: 3, bytes: 3 * size });
    small.bus.publish(succeeded({}, p));
    expect(small.svc.pendingOf(ep.id)).toEqual({ count: 3, bytes: 3 * size });
    await small.svc.idle();
    const log = small.svc.deliveries(ep.id);
    expect(log.filter((e) => e.error?.startsWith('given up'))).toHaveLength(1);
    expect(log[0]).toMatchObject({
      attempt: 1, // given up before its first attempt started
      error: `given up: pending limit reached (10000 deliveries or ${3 * size} bytes per endpoint)`,
    });
  });

  test("a shop's webhook_url deliveries share one bound, logged in the log of the endpoint that signs them", async () => {
    const { bus, svc } = downService({ maxPendingPerEndpoint: 2 });
    const signer = svc.createEndpoint(SHOP_A, { url: 'https://a.example/hooks', events: ['payout.failed'] });
    for (let i = 0; i < 3; i++) bus.publish(succeeded({ webhookUrl: `https://order-${i}.example/hooks` }));
    await svc.idle();
    expect(svc.pendingOf(`shop ${SHOP_A}`)).toMatchObject({ count: 2 });
    expect(svc.pendingOf(signer.id)).toEqual({ count: 0, bytes: 0 });
    expect(svc.deliveries(signer.id).filter((e) => e.error?.startsWith('given up'))).toHaveLength(1);
  });

  test('delivered, finished and deleted series stop counting', async () => {
    const { bus, clock, svc } = downService({});
    const ep = svc.createEndpoint(SHOP_A, { url: 'https://a.example/hooks' });
    for (let i = 0; i < 5; i++) bus.publish(succeeded());
    await svc.idle();
    expect(svc.pendingOf(ep.id).count).toBe(5);
    await clock.advance(4 * 86_400_000); // every retry fails: the series end after 9 attempts
    await svc.idle();
    expect(svc.pendingOf(ep.id)).toEqual({ count: 0, bytes: 0 });
    bus.publish(succeeded());
    await svc.idle();
    svc.deleteEndpoint(ep.id);
    expect(svc.pendingOf(ep.id)).toEqual({ count: 0, bytes: 0 });
    expect(svc.stats().pending).toBe(0);
  });
});
