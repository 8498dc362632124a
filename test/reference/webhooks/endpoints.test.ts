import { inspect } from 'node:util';
import { afterEach, describe, expect, test } from 'vitest';
import { ManualClock } from '../../../src/reference/domain/clock.js';
import { DomainError } from '../../../src/reference/domain/errors.js';
import { EventBus } from '../../../src/reference/domain/events.js';
import { createWebhookService, type WebhookService } from '../../../src/reference/webhooks/index.js';
import { WEBHOOK_EVENTS } from '../../../src/schemas/names.js';
import { SHOP_A, stubFetch, succeeded, T0 } from './helpers.js';

let svc: WebhookService | undefined;
afterEach(async () => {
  await svc?.close();
  svc = undefined;
});

function setup() {
  const bus = new EventBus();
  const stub = stubFetch();
  svc = createWebhookService({ bus, clock: new ManualClock(T0), fetch: stub.fetch });
  return { bus, seen: stub.seen, svc };
}

function refusal(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return err as DomainError;
  }
  throw new Error('expected a DomainError');
}

describe('createEndpoint', () => {
  test('defaults: all events (empty list), signature v2, a fresh whs_ secret shown once', () => {
    const { svc } = setup();
    const a = svc.createEndpoint(SHOP_A, { url: 'https://shop.example/hooks' });
    const b = svc.createEndpoint(SHOP_A, { url: 'http://127.0.0.1:8080/hooks', events: [] });
    expect(a).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: 'https://shop.example/hooks',
      events: [],
      signature_version: 'v2',
      secret: expect.stringMatching(/^whs_[0-9a-f]{64}$/),
    });
    expect(b.events).toEqual([]);
    expect(b.id).not.toBe(a.id);
    expect(b.secret).not.toBe(a.secret);
  });

  test('keeps the selected events (deduplicated) and v1 when asked', () => {
    const { svc } = setup();
    const ep = svc.createEndpoint(SHOP_A, {
      url: 'https://shop.example/hooks',
      events: ['payment.succeeded', 'payout.failed', 'payment.succeeded'],
      signature_version: 'v1',
    });
    expect(ep.events).toEqual(['payment.succeeded', 'payout.failed']);
    expect(ep.signature_version).toBe('v1');
    const every = svc.createEndpoint(SHOP_A, {
      url: 'https://shop.example/all',
      events: [...WEBHOOK_EVENTS],
    });
    expect(every.events).toEqual([...WEBHOOK_EVENTS]);
  });

  test.each([
    ['not an object', 'nope', /JSON object/],
    ['an array', [], /JSON object/],
    ['null', null, /JSON object/],
    ['no url', {}, /^url: must be an absolute http\(s\) URL/],
    ['url not a string', { url: 42 }, /^url: must be an absolute http\(s\) URL/],
    ['relative url', { url: '/hooks' }, /^url: must be an absolute http\(s\) URL/],
    ['ftp url', { url: 'ftp://shop.example/hooks' }, /^url: must be an absolute http\(s\) URL/],
    ['javascript url', { url: 'javascript:alert(1)' }, /^url: must be an absolute http\(s\) URL/],
    ['url with credentials', { url: 'https://user:pw@shop.example/hooks' }, /user name or password/],
    [
      'url too long',
      { url: `https://shop.example/${'a'.repeat(3000)}` },
      /^url: must be at most 2048 characters$/,
    ],
    [
      'events not an array',
      { url: 'https://x.example', events: 'payment.succeeded' },
      /array of webhook event names/,
    ],
    ['events with a non-string', { url: 'https://x.example', events: [1] }, /^events\.0: must be one of/],
    [
      'unknown event',
      { url: 'https://x.example', events: ['payment.succeeded', 'payment.created'] },
      /^events\.1: must be one of payment\.succeeded, /,
    ],
    ['bad signature_version', { url: 'https://x.example', signature_version: 'v3' }, /"v1" or "v2"/],
    ['unknown field', { url: 'https://x.example', event: ['payment.failed'] }, /^unknown field "event"$/],
  ])('refuses %s with 400 bad_request and creates nothing', async (_name, input, message) => {
    const { bus, seen, svc } = setup();
    const err = refusal(() => svc.createEndpoint(SHOP_A, input));
    expect(err.status).toBe(400);
    expect(err.code).toBe('bad_request');
    expect(err.message).toMatch(message);
    bus.publish(succeeded());
    await svc.idle();
    expect(seen).toHaveLength(0);
  });
});

describe('rotateSecret, deleteEndpoint, deliveries', () => {
  test('rotation gives a new whs_ secret each time; unknown ids are 404 not_found', () => {
    const { svc } = setup();
    const ep = svc.createEndpoint(SHOP_A, { url: 'https://shop.example/hooks' });
    const one = svc.rotateSecret(ep.id).secret;
    const two = svc.rotateSecret(ep.id).secret;
    expect(one).toMatch(/^whs_[0-9a-f]{64}$/);
    expect(new Set([ep.secret, one, two]).size).toBe(3);
    for (const fn of [
      () => svc.rotateSecret('missing'),
      () => svc.deleteEndpoint('missing'),
      () => svc.deliveries('missing'),
    ]) {
      const err = refusal(fn);
      expect([err.status, err.code]).toEqual([404, 'not_found']);
    }
  });

  test('endpointShop tells the owner for the cabinet, and forgets deleted endpoints', () => {
    const { svc } = setup();
    const ep = svc.createEndpoint(SHOP_A, { url: 'https://shop.example/hooks' });
    expect(svc.endpointShop(ep.id)).toBe(SHOP_A);
    expect(svc.deliveries(ep.id)).toEqual([]);
    svc.deleteEndpoint(ep.id);
    expect(svc.endpointShop(ep.id)).toBeUndefined();
  });

  test('secrets never appear in errors or log lines', async () => {
    const bus = new EventBus();
    const lines: string[] = [];
    const stub = stubFetch(() => new Response(null, { status: 500 }));
    svc = createWebhookService({
      bus,
      clock: new ManualClock(T0),
      fetch: stub.fetch,
      logger: (l) => lines.push(l),
    });
    const ep = svc.createEndpoint(SHOP_A, { url: 'https://shop.example/hooks' });
    bus.publish(succeeded());
    bus.publish(succeeded({ webhookUrl: 'https://order.example/cb' }));
    await svc.idle();
    const rotated = svc.rotateSecret(ep.id).secret;
    const err = refusal(() => svc!.createEndpoint(SHOP_A, { url: ep.secret }));
    const texts = [lines.join('\n'), err.message, JSON.stringify(err), inspect(err)];
    expect(lines.length).toBeGreaterThan(0);
    for (const text of texts) {
      expect(text).not.toContain(ep.secret);
      expect(text).not.toContain(rotated);
      expect(text).not.toContain('whs_');
    }
  });
});

describe('service options', () => {
  test.each([
    ['maxInFlight', 0],
    ['maxInFlight', Number.NaN],
    ['deadlineMs', -1],
    ['logLimit', 1.5],
    ['historyLimit', Number.POSITIVE_INFINITY],
  ])('%s = %s is a RangeError naming it', (name, value) => {
    expect(() =>
      createWebhookService({ bus: new EventBus(), clock: new ManualClock(T0), [name]: value }),
    ).toThrow(new RegExp(`^${name} must be an integer`));
  });
});
