import { afterEach, describe, expect, test } from 'vitest';
import { ManualClock } from '../../../src/reference/domain/clock.js';
import { EventBus } from '../../../src/reference/domain/events.js';
import { createWebhookService, type WebhookService } from '../../../src/reference/webhooks/index.js';
import { signWebhook, verifyWebhook } from '../../../src/webhooks/index.js';
import { hmac, type Receiver, receiver, SHOP_A, succeeded, T0 } from './helpers.js';

let svc: WebhookService | undefined;
let rx: Receiver | undefined;
afterEach(async () => {
  await svc?.close();
  await rx?.close();
  svc = undefined;
  rx = undefined;
});

/** Parses `t=..,v1=..,v2=..` the way a receiver would, independently of the code under test. */
function parseV2(header: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of header.split(',')) {
    const i = part.indexOf('=');
    out[part.slice(0, i)] = part.slice(i + 1);
  }
  return out;
}

describe('signed requests over a real socket (spec 6.1)', () => {
  test('v2: headers exactly as the spec lists, t = service clock seconds, v1 and v2 over "<t>.<body>"', async () => {
    rx = await receiver((_q, res) => res.writeHead(500).end());
    const bus = new EventBus();
    const clock = new ManualClock(T0 + 999); // a fraction of a second past T0: t is floored
    svc = createWebhookService({ bus, clock });
    const ep = svc.createEndpoint(SHOP_A, { url: rx.url });
    bus.publish(succeeded());
    await svc.idle();
    await clock.advance(10_000);
    expect(rx.seen).toHaveLength(2);
    const ts = [Math.floor(T0 / 1000), Math.floor(T0 / 1000) + 10];
    rx.seen.forEach((req, i) => {
      const h = req.headers;
      expect(h['content-type']).toBe('application/json');
      expect(h['user-agent']).toBe('psp-webhook/1.0');
      expect(h['x-psp-event-id']).toBe(JSON.parse(req.body).id);
      expect(h['x-psp-timestamp']).toBe(String(ts[i]));
      const sig = parseV2(h['x-psp-signature']!);
      expect(Object.keys(sig)).toEqual(['t', 'v1', 'v2']);
      expect(sig.t).toBe(String(ts[i]));
      // The key is the whs_ string exactly as shown, prefix included.
      expect(sig.v2).toBe(hmac(ep.secret, `${ts[i]}.${req.body}`));
      // Bound to t like v2=: a captured header yields no body-only legacy signature (issue 13, hole 2).
      expect(sig.v1).toBe(hmac(ep.secret, `${sig.t}.${req.body}`));
      expect(sig.v2).not.toBe(hmac(ep.secret.slice(4), `${ts[i]}.${req.body}`));
    });
    // Same bytes on the retry, signed afresh with a new timestamp.
    expect(rx.seen[1]!.body).toBe(rx.seen[0]!.body);
    expect(rx.seen[1]!.headers['x-psp-signature']).not.toBe(rx.seen[0]!.headers['x-psp-signature']);
  });

  test('v1 endpoints: X-PSP-Signature is sha256=<HMAC of the raw body>, X-PSP-Timestamp still sent', async () => {
    rx = await receiver();
    const bus = new EventBus();
    const clock = new ManualClock(T0);
    svc = createWebhookService({ bus, clock });
    const ep = svc.createEndpoint(SHOP_A, { url: rx.url, signature_version: 'v1' });
    bus.publish(succeeded());
    await svc.idle();
    const [req] = rx.seen;
    expect(req!.headers['x-psp-signature']).toBe(`sha256=${hmac(ep.secret, req!.body)}`);
    expect(req!.headers['x-psp-timestamp']).toBe(String(T0 / 1000));
    expect(svc.deliveries(ep.id)[0]).toMatchObject({ status_code: 200, error: null });
  });

  test.each(['v1', 'v2'] as const)(
    '%s: the delivery carries exactly the headers signWebhook gives for the same body, secret and time',
    async (version) => {
      rx = await receiver();
      const bus = new EventBus();
      svc = createWebhookService({ bus, clock: new ManualClock(T0 + 999) });
      const ep = svc.createEndpoint(SHOP_A, { url: rx.url, signature_version: version });
      bus.publish(succeeded());
      await svc.idle();
      const [req] = rx.seen;
      const sdk = signWebhook(JSON.parse(req!.body), ep.secret, { version, timestamp: T0 / 1000 });
      expect(sdk.body).toBe(req!.body);
      // What fetch and the socket add (host, content-length, accept, sec-fetch-mode, ...) aside.
      const sent = Object.fromEntries(
        Object.entries(req!.headers).filter(([k]) => /^(content-type|user-agent|x-.*)$/.test(k)),
      );
      expect(sent).toEqual(sdk.headers);
      expect(Object.keys(sdk.headers).sort()).toEqual([
        'content-type',
        'user-agent',
        'x-psp-event-id',
        'x-psp-signature',
        'x-psp-timestamp',
      ]);
    },
  );

  test('a non-ASCII body is signed over its UTF-8 bytes as sent', async () => {
    rx = await receiver();
    const bus = new EventBus();
    svc = createWebhookService({ bus, clock: new ManualClock(T0) });
    const ep = svc.createEndpoint(SHOP_A, { url: rx.url });
    const ev = succeeded();
    if (ev.type === 'payment.status_changed') ev.payment.metadata = { note: 'Оплата заказа №7 ✓' };
    bus.publish(ev);
    await svc.idle();
    const [req] = rx.seen;
    expect(JSON.parse(req!.body).data.metadata.note).toBe('Оплата заказа №7 ✓');
    const sig = parseV2(req!.headers['x-psp-signature']!);
    expect(sig.v2).toBe(hmac(ep.secret, `${sig.t}.${req!.body}`));
  });

  test("the SDK's verifyWebhook accepts what the reference sends, v2 and v1, and refuses a rotated-out secret", async () => {
    rx = await receiver();
    const bus = new EventBus();
    const clock = new ManualClock(T0);
    svc = createWebhookService({ bus, clock });
    const v2 = svc.createEndpoint(SHOP_A, { url: `${rx.url}/v2` });
    const v1 = svc.createEndpoint(SHOP_A, { url: `${rx.url}/v1`, signature_version: 'v1' });
    const ev = succeeded();
    bus.publish(ev);
    await svc.idle();
    expect(rx.seen).toHaveLength(2);
    for (const req of rx.seen) {
      const secret = req.url.endsWith('/v2') ? v2.secret : v1.secret;
      const event = verifyWebhook(req.body, req.headers, secret, {
        now: T0,
        requireV2: req.url.endsWith('/v2'),
      });
      expect(event.event).toBe('payment.succeeded');
      expect(event.data).toEqual({ ...(ev as { payment: object }).payment, shop_id: SHOP_A });
    }
    const rotated = svc.rotateSecret(v2.id).secret;
    bus.publish(succeeded());
    await svc.idle();
    const fresh = rx.seen.find((r, i) => i >= 2 && r.url.endsWith('/v2'))!;
    expect(() => verifyWebhook(fresh.body, fresh.headers, v2.secret, { now: T0 })).toThrow();
    expect(verifyWebhook(fresh.body, fresh.headers, [v2.secret, rotated], { now: T0 }).event).toBe(
      'payment.succeeded',
    );
  });
});
