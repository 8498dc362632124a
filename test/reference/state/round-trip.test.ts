import { describe, expect, test } from 'vitest';
import { createReference } from '../../../src/reference/service.js';
import { verifyWebhook } from '../../../src/webhooks/index.js';
import { BANK_ID, expectError, setup } from '../helpers.js';

/** A webhook receiver that answers `status` and keeps what it got. */
function receiver() {
  const got: { url: string; body: string; headers: Headers }[] = [];
  let status = 500;
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const req = new Request(input, init);
    got.push({ url: req.url, body: await req.text(), headers: req.headers });
    return new Response(null, { status });
  }) as typeof globalThis.fetch;
  return { got, fetch, answer: (s: number) => (status = s) };
}

/** Waits turns of the event loop (no wall-clock time) until `done`; deliveries run on later turns. */
async function until(done: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 1000 && !(await done()); i++) await new Promise((resolve) => setImmediate(resolve));
  expect(await done()).toBe(true);
}

/** A reference with something of every kind: merchants, keys, payments in each state, a refund, a payout, an endpoint with a retry pending. */
async function populated() {
  const hook = receiver();
  const t = setup({ webhookFetch: hook.fetch });
  const { ref, admin, call, createPayment } = t;
  const ep = await admin(`/_cabinet/shops/${ref.shop_id}/webhook-endpoints`, {
    body: { url: 'https://shop.example/hooks' },
  });
  expect(ep.status).toBe(201);
  const second = await admin('/_cabinet/merchants', { body: { name: 'Second' } });
  const live = await admin(`/_cabinet/terminals/${ref.terminal_id}/api-keys`, {
    body: { mode: 'test' },
  });
  const revoked = await admin(`/_cabinet/terminals/${ref.terminal_id}/api-keys`, {
    body: { mode: 'test' },
  });
  await admin(`/_cabinet/api-keys/${revoked.body.id}`, { method: 'DELETE' });
  const pending = await createPayment({ amount: 1000 });
  const paid = await createPayment(
    { amount: 5000, metadata: { order: 'A-1' } },
    { headers: { 'idempotency-key': 'k-1' } },
  );
  await ref.control.succeedPayment(paid.payment.id);
  const refund = await call(`/payments/${paid.payment.id}/refund`, { body: { amount: 1000, reason: 'r' } });
  expect(refund.status).toBe(201);
  const payout = await call('/payouts', { body: { amount: 2000, phone: '+79001234567', bank_id: BANK_ID } });
  expect(payout.status, payout.text).toBe(201);
  await createPayment({ amount: 1000 }, { key: second.body.api_key });
  // The two webhooks (payment.succeeded, payment.refunded) are attempted and fail: their retries wait on the clock.
  await until(() => hook.got.length === 2);
  await until(async () => (await ref.control.listDeliveries(ep.body.id)).items.length === 2);
  return {
    ...t,
    hook,
    endpoint: ep.body,
    second: second.body,
    live: live.body,
    pending,
    paid,
    payout: payout.body,
  };
}

describe('snapshot and restore', () => {
  test('snapshot -> mutate -> restore gives the identical snapshot, over HTTP', async () => {
    const { ref, admin, call, createPayment, second } = await populated();
    const before = await admin('/_simulator/snapshot');
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ format: 'psp-reference-snapshot', version: 1 });
    expect(before.body.payments).toHaveLength(3);
    expect(before.body.pending_deliveries.length).toBeGreaterThan(0);

    await createPayment({ amount: 777 });
    await admin('/_cabinet/merchants', { body: { name: 'Later' } });
    await admin(
      `/_cabinet/api-keys/${(await admin(`/_cabinet/terminals/${ref.terminal_id}/api-keys`)).body.items[0].id}`,
      {
        method: 'DELETE',
      },
    );
    await ref.control.advanceClock(120);

    const restored = await admin('/_simulator/restore', { body: before.body });
    expect(restored.status, restored.text).toBe(200);
    expect(restored.body).toEqual({ restored: { merchants: 2, payments: 3, refunds: 1, payouts: 1 } });
    const after = await admin('/_simulator/snapshot');
    expect(after.body).toEqual(before.body);
    // The keys work again: the facts' key was revoked after the snapshot, and the second merchant's key sees its own.
    expect((await call('/banks/sbp')).status).toBe(200);
    expect((await call('/payments', { body: { amount: 1000 }, key: second.api_key })).status).toBe(201);
  });

  test('fault rules come back with their ids and hits; a bad one is refused whole', async () => {
    const { ref, call } = setup();
    const rule = await ref.control.addFault({
      kind: 'error',
      status: 503,
      count: 2,
      match: { method: 'GET' },
    });
    expectError(await call('/banks/sbp'), 503);
    const doc = await ref.control.snapshot();
    expect(doc.fault_rules).toEqual([{ ...rule, hits: 1 }]);
    await ref.control.clearFaults();
    await ref.control.restore(doc);
    expect((await ref.control.listFaults()).items).toEqual([{ ...rule, hits: 1 }]);
    expectError(await call('/banks/sbp'), 503); // its second and last hit
    expect((await call('/banks/sbp')).status).toBe(200);
    const before = await ref.control.snapshot();
    const bad = { ...doc, fault_rules: [{ ...doc.fault_rules[0], status: 200 }] };
    await expect(ref.control.restore(bad)).rejects.toThrow(/fault_rules\[0\]\.status/);
    expect(await ref.control.snapshot()).toEqual(before);
  });

  test("the document is the caller's: changing it changes nothing live", async () => {
    const { ref, paid } = await populated();
    const doc = await ref.control.snapshot();
    const again = await ref.control.snapshot();
    doc.merchants[0]!.ip_allow_list.push('10.0.0.0/8');
    doc.merchants[0]!.rate_limit.limit = 1;
    doc.payments.find((p) => p.id === paid.payment.id)!.metadata!.order = 'changed';
    expect(await ref.control.snapshot()).toEqual(again);
  });

  test('keys created after the snapshot are gone; the idempotency record replays', async () => {
    const { ref, call, paid } = await populated();
    const doc = await ref.control.snapshot();
    const later = await ref.control.createApiKey(ref.terminal_id, { mode: 'test' });
    expect((await call('/banks/sbp', { key: later.api_key })).status).toBe(200);
    await ref.control.restore(doc);
    expectError(await call('/banks/sbp', { key: later.api_key }), 401);
    const replay = await call('/payments', {
      body: { amount: 5000, metadata: { order: 'A-1' } },
      headers: { 'idempotency-key': 'k-1' },
    });
    expect(replay.status).toBe(200);
    expect(replay.body.payment.id).toBe(paid.payment.id);
  });

  test('webhook retries and payment expiry fire after a restore under the manual clock, signed with the restored secret', async () => {
    const { ref, hook, endpoint, pending } = await populated();
    const doc = await ref.control.snapshot();
    const due = doc.pending_deliveries.map((d) => d.due_at);
    expect(due.every((d) => d === doc.clock.now + 10_000)).toBe(true);
    await ref.control.advanceClock(3600); // everything fires on the old state...
    hook.answer(200);
    await ref.control.restore(doc); // ...and comes back
    expect(ref.clock.now()).toBe(doc.clock.now);
    const ids = new Set(doc.pending_deliveries.map((d) => d.event_id));
    const retried = () => hook.got.filter((g) => ids.has(JSON.parse(g.body).id));
    hook.got.length = 0;
    await ref.control.advanceClock(9);
    expect(retried()).toHaveLength(0);
    await ref.control.advanceClock(1);
    await until(() => retried().length === 2);
    for (const g of retried()) {
      const verified = verifyWebhook(g.body, g.headers, endpoint.secret, { now: ref.clock.now() });
      expect(verified.id).toMatch(/^evt_/);
    }
    expect((await ref.control.listDeliveries(endpoint.id)).items.at(-1)?.status_code).toBe(200);
    expect(ref.stats().scheduled_deadlines).toBeGreaterThan(0);
    await ref.control.advanceClock(1800);
    expect((await ref.control.listDeliveries(endpoint.id)).items.length).toBeGreaterThan(0);
    const expired = () => hook.got.map((g) => JSON.parse(g.body)).find((e) => e.event === 'payment.expired');
    await until(() => expired() !== undefined);
    expect(expired().data.id).toBe(pending.payment.id);
  });

  test('a restore keeps the admin token in force and takes the rest from the document', async () => {
    const { ref } = await populated();
    const doc = await ref.control.snapshot();
    const other = setup();
    await other.ref.control.restore(doc);
    expect((await other.admin('/_simulator/clock')).status).toBe(200);
    expectError(await other.call('/_simulator/clock', { key: doc.admin_token }), 401);
    expect((await other.call('/banks/sbp', { key: ref.api_key })).status).toBe(200);
    expectError(await other.call('/banks/sbp', { key: other.ref.api_key }), 401);
    expect(await other.ref.control.snapshot()).toEqual({ ...doc, admin_token: other.ref.admin_token });
  });

  test('createReference({ state }) starts from a document: its facts, its admin token, its clock', async () => {
    const { ref } = await populated();
    const doc = await ref.control.snapshot();
    const again = createReference({ clock: 'manual', state: doc });
    expect(again).toMatchObject({ admin_token: doc.admin_token, ...doc.facts });
    expect(again.clock.now()).toBe(doc.clock.now);
    expect(await again.control.snapshot()).toEqual(doc);
    await again.close();
    await ref.close();
  });

  test('an event stream of a key the restored state does not hold ends; one of a key it holds stays open', async () => {
    const { ref, call } = setup();
    const doc = await ref.control.snapshot();
    const later = await ref.control.createMerchant({ name: 'Later' });
    const open = async (key: string) => {
      const res = await ref.fetch(
        new Request('http://ref.test/api/v1/public/events', { headers: { authorization: `Bearer ${key}` } }),
      );
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      await reader.read(); // `: connected`
      return reader;
    };
    const gone = await open(later.api_key);
    const kept = await open(ref.api_key);
    await ref.control.restore(doc);
    expect((await gone.read()).done).toBe(true);
    await call('/payments', { body: { amount: 1000 } });
    const next = new TextDecoder().decode((await kept.read()).value);
    expect(next).toContain('payment.created');
    await kept.cancel();
  });
});

describe('a document that is not a valid snapshot is 400 and changes nothing', () => {
  const cases: [string, (doc: any) => unknown][] = [
    ['another version', (d) => ({ ...d, version: 2 })],
    ['another format', (d) => ({ ...d, format: 'something-else' })],
    [
      'a payment whose terminal (and merchant) is missing',
      (d) => ({ ...d, terminals: d.terminals.slice(1) }),
    ],
    [
      'a refund of a payment it does not hold',
      (d) => ({ ...d, payments: d.payments.filter((p: any) => p.amount !== 5000) }),
    ],
    ['a wrong type', (d) => ({ ...d, payments: d.payments.map((p: any) => ({ ...p, amount: '5000' })) })],
    ['an unknown field', (d) => ({ ...d, merchants: d.merchants.map((m: any) => ({ ...m, extra: 1 })) })],
    ['a duplicated id', (d) => ({ ...d, payouts: [...d.payouts, ...d.payouts] })],
    [
      'refunds that do not add up',
      (d) => ({ ...d, refunds: d.refunds.map((r: any) => ({ ...r, amount: 1 })) }),
    ],
    ['a pending delivery to an endpoint it does not hold', (d) => ({ ...d, webhook_endpoints: [] })],
    // Times past what Date can show (year 275760) made every later answer with a time a 500.
    ['a clock past year 9999', (d) => ({ ...d, clock: { ...d.clock, now: 9e15 } })],
    ['a clock before 1970', (d) => ({ ...d, clock: { ...d.clock, now: -9e15 } })],
    [
      'a payment created past year 9999',
      (d) => ({ ...d, payments: d.payments.map((p: any) => ({ ...p, created_at: 9e15 })) }),
    ],
    // The pending delivery had no URL to go to: the restore failed half-way with a 500, part of the state swapped.
    [
      'a pending delivery to the webhook_url of an event that has none',
      (d) => ({
        ...d,
        pending_deliveries: [
          { event_id: d.webhook_events[0].id, endpoint_id: null, attempt: 1, due_at: null },
        ],
      }),
    ],
    [
      "a pending delivery of one shop's event to another shop's endpoint",
      (d) => {
        const other = d.shops.find((s: any) => s.id !== d.webhook_endpoints[0].shop_id).id;
        return { ...d, webhook_events: d.webhook_events.map((e: any) => ({ ...e, shop_id: other })) };
      },
    ],
    [
      'an event whose webhook_url is not an http(s) URL without credentials',
      (d) => ({
        ...d,
        webhook_events: d.webhook_events.map((e: any) => ({
          ...e,
          webhook_url: 'https://user:pw@shop.example/h',
        })),
      }),
    ],
    [
      'startup facts naming a merchant it does not hold',
      (d) => ({ ...d, facts: { ...d.facts, merchant_id: '00000000-0000-4000-8000-000000000000' } }),
    ],
    [
      'startup facts whose terminal is of another merchant',
      (d) => ({ ...d, facts: { ...d.facts, terminal_id: d.terminals[1].id } }),
    ],
    [
      'two fault rules with one id',
      (d) => {
        const rule = { id: 'flt_same', hits: 0, kind: 'reset', match: {}, phase: 'before', probability: 1 };
        return { ...d, fault_rules: [rule, rule] };
      },
    ],
    ['no document', () => undefined],
    ['an array', (d) => [d]],
  ];
  test.each(cases)('%s', async (_, breakIt) => {
    const { ref, admin } = await populated();
    const doc = await ref.control.snapshot();
    await ref.control.createMerchant({ name: 'After' });
    const before = await ref.control.snapshot();
    const broken = breakIt(structuredClone(doc));
    const r = await admin(
      '/_simulator/restore',
      broken === undefined ? { method: 'POST' } : { body: broken },
    );
    expectError(r, 400, 'bad_request');
    expect(r.body.error.message).toMatch(/^Not a valid snapshot: /);
    expect(await ref.control.snapshot()).toEqual(before);
    await expect(ref.control.restore(broken)).rejects.toThrow(/Not a valid snapshot/);
    expect(await ref.control.snapshot()).toEqual(before);
  });

  test('a truncated document is 400 and changes nothing', async () => {
    const { ref, admin } = await populated();
    const before = await ref.control.snapshot();
    const text = JSON.stringify(before);
    expectError(await admin('/_simulator/restore', { raw: text.slice(0, text.length / 2) }), 400);
    expect(await ref.control.snapshot()).toEqual(before);
  });

  test('the version error says which versions are read', async () => {
    const { ref, admin } = setup();
    const r = await admin('/_simulator/restore', { body: { ...(await ref.control.snapshot()), version: 2 } });
    expect(r.body.error.message).toContain('version 2; this reference reads version 1');
  });

  test('both routes take the admin token only', async () => {
    const { ref, call } = setup();
    expectError(await call('/_simulator/snapshot'), 401);
    expectError(await call('/_simulator/restore', { body: await ref.control.snapshot() }), 401);
    expectError(await call('/_simulator/snapshot', { key: 'adm_wrong' }), 401);
  });
});
