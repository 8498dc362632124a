import { describe, expect, test } from 'vitest';
import { MAX_KEYS_PER_TERMINAL, MAX_MERCHANTS } from '../../../src/reference/control.js';
import { MAX_ENDPOINTS_PER_SHOP } from '../../../src/reference/webhooks/endpoints.js';
import { expectError, setup } from '../helpers.js';

/** A reference with two merchants, an endpoint, and a refunded payment made with an Idempotency-Key. */
async function world() {
  const t = setup();
  const { ref, admin, call, createPayment } = t;
  const second = (await admin('/_cabinet/merchants', { body: { name: 'Second' } })).body;
  expect(
    (
      await admin(`/_cabinet/shops/${ref.shop_id}/webhook-endpoints`, {
        body: { url: 'https://shop.example/h' },
      })
    ).status,
  ).toBe(201);
  const paid = await createPayment({ amount: 5000 }, { headers: { 'idempotency-key': 'k-1' } });
  await ref.control.succeedPayment(paid.payment.id);
  const refund = await call(`/payments/${paid.payment.id}/refund`, { body: { amount: 1000 } });
  expect(refund.status).toBe(201);
  const doc = async () => structuredClone(await ref.control.snapshot()) as any;
  return { ...t, second, paid, refund: refund.body, doc };
}

/** Restores `doc` over HTTP and asserts a 400 that changed nothing. */
async function refused(t: Awaited<ReturnType<typeof world>>, doc: unknown, says: RegExp) {
  const before = JSON.stringify(await t.ref.control.snapshot());
  const r = await t.admin('/_simulator/restore', { body: doc });
  expectError(r, 400, 'bad_request');
  expect(r.body.error.message).toMatch(says);
  expect(JSON.stringify(await t.ref.control.snapshot())).toBe(before);
}

describe('a restored document passes the cabinet rules', () => {
  test('two API keys with one digest are refused (one merchant key would act for another)', async () => {
    const t = await world();
    const doc = await t.doc();
    doc.api_keys[1].digest = doc.api_keys[0].digest;
    await refused(t, doc, /same digest/);
  });

  test('a rate-limit window beyond the cabinet bound is refused (no Retry-After: Infinity)', async () => {
    const t = await world();
    const doc = await t.doc();
    doc.merchants[0].rate_limit.window_seconds = 1e308;
    await refused(t, doc, /window_seconds/);
  });

  test('a webhook endpoint URL with a user name and password is refused', async () => {
    const t = await world();
    const doc = await t.doc();
    doc.webhook_endpoints[0].url = 'https://user:pass@shop.example/h';
    await refused(t, doc, /webhook_endpoints\.0\.url/);
  });

  test('more webhook endpoints on one shop than the cabinet allows are refused', async () => {
    const t = await world();
    const doc = await t.doc();
    const [e] = doc.webhook_endpoints;
    doc.webhook_endpoints = Array.from({ length: MAX_ENDPOINTS_PER_SHOP + 1 }, (_, i) => ({
      ...e,
      id: `ep-${i}`,
      seq: i,
    }));
    await refused(t, doc, new RegExp(`more than ${MAX_ENDPOINTS_PER_SHOP} webhook endpoints`));
  });

  test('more merchants than the cabinet allows are refused', async () => {
    const t = await world();
    const doc = await t.doc();
    const m = doc.merchants[1];
    for (let i = doc.merchants.length; i <= MAX_MERCHANTS; i++) doc.merchants.push({ ...m, id: `m-${i}` });
    await refused(t, doc, new RegExp(`at most ${MAX_MERCHANTS} merchants`));
  });

  test('more API keys on one terminal than the cabinet allows are refused', async () => {
    const t = await world();
    const doc = await t.doc();
    const k = doc.api_keys[0];
    for (let i = 0; i < MAX_KEYS_PER_TERMINAL; i++)
      doc.api_keys.push({ ...k, id: `key-${i}`, digest: i.toString(16).padStart(64, '0') });
    await refused(t, doc, new RegExp(`more than ${MAX_KEYS_PER_TERMINAL} API keys`));
  });

  test('metadata with a __proto__ key is kept as given, not silently dropped', async () => {
    const t = await world();
    const doc = await t.doc();
    doc.payments[0].metadata = JSON.parse('{"__proto__":"x","a":"b"}');
    expect((await t.admin('/_simulator/restore', { body: doc })).status).toBe(200);
    const read = await t.call(`/payments/${t.paid.payment.id}`);
    expect(read.text).toContain('"metadata":{"__proto__":"x","a":"b"}');
  });

  test('an idempotency record naming a refund is never replayed on the payments route as a 500', async () => {
    const t = await world();
    const doc = await t.doc();
    const entry = doc.idempotency.find((e: { key: string }) => e.key === 'k-1');
    entry.object_id = t.refund.id;
    // The document cannot say which route a fingerprint was made on, so the restore takes it; the replay then
    // finds no payment behind the key, which is the key used for another request.
    expect((await t.admin('/_simulator/restore', { body: doc })).status).toBe(200);
    const replay = await t.call('/payments', {
      body: { amount: 5000 },
      headers: { 'idempotency-key': 'k-1' },
    });
    expectError(replay, 409, 'idempotent_conflict');
  });
});
