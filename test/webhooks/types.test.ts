import { describe, expect, expectTypeOf, it } from 'vitest';
import { WEBHOOK_EVENTS, type WebhookEventName } from '../../src/schemas/names.js';
import type { Payout, WebhookPayment } from '../../src/schemas/resources.js';
import { type KnownWebhookEvent, type UnknownWebhookEvent, verifyWebhook } from '../../src/webhooks/index.js';
import { envelope, NOW_MS, SECRET, v2Headers } from './helpers.js';

describe('webhook event types', () => {
  it('the known variants are exactly the spec names, and the generic one never collides with them', () => {
    expectTypeOf<KnownWebhookEvent['event']>().toEqualTypeOf<WebhookEventName>();
    expectTypeOf<Extract<UnknownWebhookEvent['event'], WebhookEventName>>().toBeNever();
    expectTypeOf<UnknownWebhookEvent['event']>().toExtend<string>();
    // The checks above are tsc's; at run time, the list the type is made from has the spec's names once each.
    expect(new Set(WEBHOOK_EVENTS).size).toBe(WEBHOOK_EVENTS.length);
  });

  it('narrowing on event gives the precise data type', () => {
    const body = JSON.stringify(envelope());
    const event = verifyWebhook(body, v2Headers(body), SECRET, { now: NOW_MS });
    if (event.event === 'payment.succeeded') {
      expectTypeOf(event.data).toEqualTypeOf<WebhookPayment>();
      expectTypeOf(event.event).toEqualTypeOf<'payment.succeeded'>();
    }
    if (event.event === 'payout.failed') expectTypeOf(event.data).toEqualTypeOf<Payout>();
    switch (event.event) {
      case 'payment.refunded':
        expectTypeOf(event.data.amount_refunded).toEqualTypeOf<number>();
        break;
      case 'payment.succeeded':
      case 'payment.failed':
      case 'payment.cancelled':
      case 'payment.expired':
      case 'payout.succeeded':
      case 'payout.failed':
        break;
      default:
        // Only the generic variant is left: its data is an open record, its name still a string.
        expectTypeOf(event.data).toEqualTypeOf<Record<string, unknown>>();
        expectTypeOf(event.event).toExtend<string>();
    }
    expect(event.event).toBe('payment.succeeded');
  });
});
