// The readiness report (issue 41 item 2) from what the reference saw: a naive receiver that refunds on every
// payment.succeeded delivery under duplicate=1 shows `duplicate-side-effect`, one that dedupes by event id shows
// none; two creates of one order_id under different keys show `duplicate-charge`; items and score follow the traffic.
import { describe, expect, it } from 'vitest';
import { PspClient } from '../../../src/index.js';
import { createReference, type Reference } from '../../../src/reference/index.js';
import { readinessJUnit, readinessMarkdown, readinessText } from '../../../src/reference/readiness/format.js';
import { createWebhookHandler, type WebhookEvent } from '../../../src/webhooks/index.js';

/** A merchant's shop: a client, and a receiver whose handler is `onSucceeded`, on a reference with `chaos`. */
async function shop(onSucceeded: (event: WebhookEvent, psp: PspClient) => Promise<void>, chaos?: object) {
  let handle: (request: Request) => Promise<Response> = async () => new Response(null, { status: 503 });
  const ref: Reference = createReference({
    clock: 'manual',
    ...(chaos ? { webhookChaos: chaos } : {}),
    webhookFetch: async (input, init) => handle(new Request(input, init)),
  });
  const psp = new PspClient({
    apiKey: ref.api_key,
    baseUrl: 'http://psp.test',
    fetch: (input, init) => ref.fetch(new Request(input, init)),
  });
  const endpoint = await ref.control.createWebhookEndpoint(ref.shop_id, { url: 'https://shop.test/hooks' });
  handle = createWebhookHandler({
    secret: endpoint.secret,
    now: ref.clock.now,
    on: { 'payment.succeeded': (event) => onSucceeded(event, psp) },
    onError: () => {}, // a receiver that fails on purpose: its failures are the test's
  });
  const deliveries = async (n: number) => {
    while ((await ref.control.listDeliveries(endpoint.id)).items.length < n)
      await new Promise((resolve) => setImmediate(resolve));
  };
  return { ref, psp, deliveries };
}

describe('readiness findings', () => {
  it('a receiver that refunds on every delivery, under duplicate=1: duplicate-side-effect naming the event', async () => {
    const { ref, psp, deliveries } = await shop(
      async (event, client) => {
        await client.payments.refund(event.data.id as string, { amount: 100 }); // a fresh key each time
      },
      { seed: 1, duplicate: 1 },
    );
    try {
      const { payment } = await psp.payments.create({ amount: 1000, order_id: 'A-1' });
      await ref.pay(payment.id);
      await deliveries(2);
      const report = ref.readiness();
      const found = report.findings.filter((f) => f.id === 'duplicate-side-effect');
      expect(found).toHaveLength(1);
      expect(found[0]).toMatchObject({ severity: 'high' });
      expect(found[0]!.evidence).toContain(payment.id);
      expect(report.items.find((i) => i.id === 'webhook-duplicate')?.exercised).toBe(true);
    } finally {
      await ref.close();
    }
  });

  it('a receiver that dedupes by event id, under duplicate=1: no finding of it', async () => {
    const handled = new Set<string>();
    const { ref, psp, deliveries } = await shop(
      async (event, client) => {
        if (handled.has(event.id)) return;
        handled.add(event.id);
        await client.payments.refund(
          event.data.id as string,
          { amount: 100 },
          { idempotencyKey: `refund-${event.id}` },
        );
      },
      { seed: 1, duplicate: 1 },
    );
    try {
      const { payment } = await psp.payments.create({ amount: 1000, order_id: 'A-1' });
      await ref.pay(payment.id);
      await deliveries(2);
      const report = ref.readiness();
      expect(report.findings.map((f) => f.id)).not.toContain('duplicate-side-effect');
      expect(report.findings.map((f) => f.id)).not.toContain('duplicate-charge');
    } finally {
      await ref.close();
    }
  });

  it('two creates of one order_id under different keys: duplicate-charge, high once both took money', async () => {
    const { ref, psp } = await shop(async () => {});
    try {
      const first = await psp.payments.create({ amount: 1000, order_id: 'ORDER-7' });
      const second = await psp.payments.create({ amount: 1000, order_id: 'ORDER-7' });
      expect(ref.readiness().findings.find((f) => f.id === 'duplicate-charge')).toMatchObject({
        severity: 'medium',
      });
      await ref.pay(first.payment.id);
      await ref.pay(second.payment.id);
      const finding = ref.readiness().findings.find((f) => f.id === 'duplicate-charge');
      expect(finding).toMatchObject({ severity: 'high' });
      expect(finding!.evidence).toContain('ORDER-7');
      expect(finding!.evidence).toContain(first.payment.id);
      // The same order under one key is one payment: no finding.
      const { ref: other, psp: keyed } = await shop(async () => {});
      await keyed.payments.create({ amount: 1000, order_id: 'ORDER-8' }, { idempotencyKey: 'order-8' });
      await keyed.payments.create({ amount: 1000, order_id: 'ORDER-8' }, { idempotencyKey: 'order-8' });
      expect(other.readiness().findings).toEqual([]);
      await other.close();
    } finally {
      await ref.close();
    }
  });

  it('webhook-failures: deliveries not acknowledged with a 2xx', async () => {
    const { ref, psp, deliveries } = await shop(async () => {
      throw new Error('down');
    });
    try {
      const { payment } = await psp.payments.create({ amount: 1000 });
      await ref.pay(payment.id);
      await deliveries(1);
      expect(ref.readiness().findings.find((f) => f.id === 'webhook-failures')?.evidence).toMatch(
        /1 delivery attempts/,
      );
    } finally {
      await ref.close();
    }
  });
});

describe('readiness items and score', () => {
  it('counts what the traffic exercised; the score is their share; per merchant', async () => {
    const { ref, psp, deliveries } = await shop(async () => {});
    try {
      const empty = ref.readiness();
      expect(empty.items.every((i) => !i.exercised)).toBe(true);
      expect(empty.score).toBe(0);
      const { payment } = await psp.payments.create({ amount: 1000 }, { idempotencyKey: 'k-1' });
      await ref.pay(payment.id);
      await deliveries(1);
      await psp.payments.refund(payment.id, { amount: 100 });
      await expect(psp.payments.refund(payment.id, { amount: 5000 })).rejects.toThrow();
      await expect(psp.payments.create({ amount: 2000 }, { idempotencyKey: 'k-1' })).rejects.toThrow();
      const report = ref.readiness({ merchant: ref.merchant_id });
      const met = report.items.filter((i) => i.exercised).map((i) => i.id);
      expect(met).toEqual(
        expect.arrayContaining([
          'payment-succeeded',
          'refund-partial',
          'refusal-amount_exceeds_balance',
          'idempotency-conflict',
          'signature-v2',
        ]),
      );
      expect(met).not.toContain('refund-full');
      expect(report.score).toBe(Math.round((100 * met.length) / report.items.length));
      expect(report.merchant_id).toBe(ref.merchant_id);
      // Another merchant saw none of it.
      const other = await ref.control.createMerchant({ name: 'Other' });
      expect(ref.readiness({ merchant: other.merchant_id }).score).toBe(0);
      // As markdown, JUnit and text.
      expect(readinessMarkdown(report)).toContain(`## Payment integration readiness: ${report.score} %`);
      expect(readinessJUnit(report)).toContain('<testsuite name="psp-sdk readiness"');
      expect(readinessText(report)).toContain('[x] a partial refund');
    } finally {
      await ref.close();
    }
  });

  it('is GET /_simulator/readiness with the admin token, ?merchant= for one merchant', async () => {
    const { ref } = await shop(async () => {});
    try {
      const get = (query = '', token = ref.admin_token) =>
        ref.fetch(
          new Request(`http://ref.test/_simulator/readiness${query}`, {
            headers: { authorization: `Bearer ${token}` },
          }),
        );
      const all = await get();
      expect(all.status).toBe(200);
      expect(await all.json()).toMatchObject({ score: 0, merchant_id: null, findings: [] });
      expect(await (await get(`?merchant=${ref.merchant_id}`)).json()).toMatchObject({
        merchant_id: ref.merchant_id,
      });
      expect((await get('', ref.api_key)).status).toBe(401);
    } finally {
      await ref.close();
    }
  });
});
