import { afterEach, describe, expect, test } from 'vitest';
import { createReference, type Reference, type ReferenceOptions } from '../../src/reference/service.js';
import { verifyWebhook } from '../../src/webhooks/index.js';
import { type Receiver, receiver, stubFetch } from '../reference/webhooks/helpers.js';

let ref: Reference | undefined;
let rx: Receiver | undefined;
afterEach(async () => {
  await ref?.close();
  await rx?.close();
  ref = undefined;
  rx = undefined;
});

const BASE = 'http://ref.test';

function call(r: Reference, method: string, path: string, token: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return r.fetch(
    new Request(`${BASE}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
}

async function json(res: Promise<Response>, status: number): Promise<any> {
  const r = await res;
  const text = await r.text();
  expect(r.status, text).toBe(status);
  return text ? JSON.parse(text) : undefined;
}

/** A manual-clock reference (kept for the teardown) whose shop has the webhook endpoint that `endpoint` makes. */
async function withEndpoint(endpoint: Record<string, unknown>, options: ReferenceOptions = {}) {
  const made = createReference({ clock: 'manual', ...options });
  ref = made;
  const { admin_token: admin, api_key: key, shop_id: shop } = made;
  const ep = await json(
    call(made, 'POST', `/_cabinet/shops/${shop}/webhook-endpoints`, admin, endpoint),
    201,
  );
  return { ref: made, admin, key, shop, ep };
}

describe('webhooks end to end through reference.fetch', () => {
  test('a simulated success: the API answers before delivery completes; the signed body equals the GET snapshot', async () => {
    let release: (() => void) | undefined;
    const held = new Promise<void>((r) => {
      release = r;
    });
    rx = await receiver((_q, res) => void held.then(() => res.end('ok')));
    const { ref, admin, key, shop, ep } = await withEndpoint({ url: rx.url });
    expect(ep).toMatchObject({ url: rx.url, events: [], signature_version: 'v2' });
    const created = await json(call(ref, 'POST', '/api/v1/public/payments', key, { amount: 1500 }), 201);
    const id = created.payment.id;
    const succeeded = await json(call(ref, 'POST', `/_simulator/payments/${id}/succeed`, admin), 200);
    expect(succeeded.status).toBe('succeeded');
    // The simulator answered while the receiver still holds the delivery open.
    expect(rx.seen.length).toBeLessThanOrEqual(1);
    const pendingLog = await json(
      call(ref, 'GET', `/_cabinet/webhook-endpoints/${ep.id}/deliveries`, admin),
      200,
    );
    expect(pendingLog.items).toEqual([]);
    release!();
    await expect
      .poll(
        async () =>
          (await json(call(ref!, 'GET', `/_cabinet/webhook-endpoints/${ep.id}/deliveries`, admin), 200)).items
            .length,
      )
      .toBe(1);

    const [req] = rx.seen;
    const event = verifyWebhook(req!.body, req!.headers, ep.secret, {
      now: ref.clock.now(),
      requireV2: true,
    });
    expect(event.event).toBe('payment.succeeded');
    const snapshot = await json(call(ref, 'GET', `/api/v1/public/payments/${id}`, key), 200);
    expect(event.data).toEqual({ ...snapshot, shop_id: shop });
    expect(req!.headers['x-psp-timestamp']).toBe(String(Math.floor(ref.clock.now() / 1000)));

    const log = await json(call(ref, 'GET', `/_cabinet/webhook-endpoints/${ep.id}/deliveries`, admin), 200);
    expect(log.items).toEqual([
      {
        event_id: event.id,
        event: 'payment.succeeded',
        attempt: 1,
        status_code: 200,
        error: null,
        at: new Date(ref.clock.now()).toISOString(),
        next_attempt_at: null,
      },
    ]);

    // A refund: payment.refunded with the payment as it is after the refund.
    const refund = await json(
      call(ref, 'POST', `/api/v1/public/payments/${id}/refund`, key, { amount: 500 }),
      201,
    );
    await expect.poll(() => rx!.seen.length).toBe(2);
    const refunded = verifyWebhook(rx.seen[1]!.body, rx.seen[1]!.headers, ep.secret, {
      now: ref.clock.now(),
    });
    expect(refunded.event).toBe('payment.refunded');
    const after = await json(call(ref, 'GET', `/api/v1/public/payments/${id}`, key), 200);
    expect(refunded.data).toEqual({ ...after, shop_id: shop });
    expect((refunded.data as { refunds: Array<{ id: string }> }).refunds.map((r) => r.id)).toContain(
      refund.id,
    );

    // Resend through the cabinet: 202, the same evt_ id and body.
    const res = await call(ref, 'POST', `/_cabinet/events/${event.id}/resend`, admin);
    expect(res.status).toBe(202);
    await expect.poll(() => rx!.seen.length).toBe(3);
    expect(rx.seen[2]!.headers['x-psp-event-id']).toBe(event.id);
    expect(rx.seen[2]!.body).toBe(req!.body);
    await json(call(ref, 'POST', '/_cabinet/events/evt_unknown/resend', admin), 404);
  });

  test('the refund that completes a payment: payment.refunded carries it refunded (spec 2.10); the stream keeps its order', async () => {
    const stub = stubFetch();
    const { ref, admin, key, shop } = await withEndpoint(
      { url: 'https://merchant.example/hooks' },
      { webhookFetch: stub.fetch },
    );
    const stream = (await call(ref, 'GET', '/api/v1/public/events', key)).body!.getReader();
    const { payment } = await json(call(ref, 'POST', '/api/v1/public/payments', key, { amount: 1000 }), 201);
    await json(call(ref, 'POST', `/_simulator/payments/${payment.id}/succeed`, admin), 200);
    await json(call(ref, 'POST', `/api/v1/public/payments/${payment.id}/refund`, key, { amount: 400 }), 201);
    await json(call(ref, 'POST', `/api/v1/public/payments/${payment.id}/refund`, key), 201);
    await expect.poll(() => stub.seen.length).toBe(3);

    const bodies = stub.seen.map((s) => JSON.parse(s.body));
    expect(bodies.map((b) => [b.event, b.data.status, b.data.amount_refunded])).toEqual([
      ['payment.succeeded', 'succeeded', 0],
      ['payment.refunded', 'succeeded', 400], // partial: still succeeded
      ['payment.refunded', 'refunded', 1000], // the last refund: refunded, as GET says
    ]);
    const after = await json(call(ref, 'GET', `/api/v1/public/payments/${payment.id}`, key), 200);
    expect(bodies[2].data).toEqual({ ...after, shop_id: shop });

    // The stream still says the refund first, then the status change it caused.
    let text = '';
    while ((text.match(/^event: /gm) ?? []).length < 5) {
      const { value, done } = await stream.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    await stream.cancel();
    const frames = [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!));
    expect(frames.map((f) => [f.kind, f.payload.status])).toEqual([
      ['payment.created', 'pending'],
      ['payment.status_changed', 'succeeded'],
      ['refund.created', 'succeeded'],
      ['refund.created', 'succeeded'],
      ['payment.status_changed', 'refunded'],
    ]);
  });

  test('validation and 404s through the cabinet routes', async () => {
    ref = createReference({ clock: 'manual' });
    const { admin_token: admin, shop_id: shop } = ref;
    const bad = await json(
      call(ref, 'POST', `/_cabinet/shops/${shop}/webhook-endpoints`, admin, {
        url: 'https://x.example/h',
        events: ['payment.created'],
      }),
      400,
    );
    expect(bad.error.code).toBe('bad_request');
    expect(bad.error.message).toMatch(/^events\.0: must be one of payment\.succeeded, /);
    const missing = '00000000-0000-4000-8000-000000000000';
    await json(call(ref, 'POST', `/_cabinet/webhook-endpoints/${missing}/rotate-secret`, admin), 404);
    await json(call(ref, 'GET', `/_cabinet/webhook-endpoints/${missing}/deliveries`, admin), 404);
    expect((await call(ref, 'DELETE', `/_cabinet/webhook-endpoints/${missing}`, admin)).status).toBe(404);
  });

  test('failed deliveries are retried on the service clock as it advances', async () => {
    rx = await receiver((_q, res) => res.writeHead(500).end());
    const { ref, admin, key, ep } = await withEndpoint({ url: rx.url, signature_version: 'v1' });
    const created = await json(call(ref, 'POST', '/api/v1/public/payments', key, { amount: 700 }), 201);
    await json(call(ref, 'POST', `/api/v1/public/payments/${created.payment.id}/cancel`, key), 200);
    // The first attempt has ended (and its retry is set) once it is in the log, not when the receiver has read it.
    await expect.poll(async () => (await ref!.control.listDeliveries(ep.id)).items.length).toBe(1);
    expect(rx.seen).toHaveLength(1);
    const t0 = ref.clock.now();
    await json(call(ref, 'POST', '/_simulator/clock/advance', admin, { seconds: 70 }), 200);
    expect(rx.seen).toHaveLength(3);
    const log = await json(call(ref, 'GET', `/_cabinet/webhook-endpoints/${ep.id}/deliveries`, admin), 200);
    expect(log.items.map((e: { at: string }) => Date.parse(e.at) - t0)).toEqual([0, 10_000, 70_000]);
    expect(log.items.map((e: { event: string }) => e.event)).toEqual(Array(3).fill('payment.cancelled'));
    for (const r of rx.seen) expect(r.headers['x-psp-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
  });

  test('ReferenceOptions.webhookFetch is what delivers', async () => {
    const stub = stubFetch();
    const { ref, admin, key, shop } = await withEndpoint(
      { url: 'https://merchant.example/hooks' },
      { webhookFetch: stub.fetch },
    );
    const created = await json(call(ref, 'POST', '/api/v1/public/payments', key, { amount: 300 }), 201);
    await json(call(ref, 'POST', `/_simulator/payments/${created.payment.id}/fail`, admin), 200);
    await expect.poll(() => stub.seen.length).toBe(1);
    expect(stub.seen[0]!.url).toBe('https://merchant.example/hooks');
    expect(JSON.parse(stub.seen[0]!.body)).toMatchObject({
      event: 'payment.failed',
      data: { id: created.payment.id, shop_id: shop },
    });
  });
});
