import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PspClient, PspError } from '../../src/index.js';
import { type RunningReference, startReference } from '../../src/reference/index.js';

/** Concurrency over real sockets: the races a busy merchant backend creates on its own. */

let ref: RunningReference;
let client: PspClient;

const admin = (path: string, body?: unknown, method = 'POST') =>
  fetch(`${ref.base_url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ref.admin_token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

beforeAll(async () => {
  ref = await startReference({ port: 0 });
  const res = await admin(
    `/_cabinet/merchants/${ref.merchant_id}`,
    { rate_limit: { limit: 1_000_000, window_seconds: 1 } },
    'PATCH',
  );
  expect(res.status).toBe(200);
  client = new PspClient({ apiKey: ref.api_key, baseUrl: ref.base_url, timeout: 20_000 });
});

afterAll(async () => {
  await ref?.close();
});

describe('concurrency', () => {
  it('100 concurrent refunds on one payment never exceed its amount', async () => {
    const { payment } = await client.payments.create({ amount: 10_000 });
    expect((await admin(`/_simulator/payments/${payment.id}/succeed`)).status).toBe(200);

    // 100 refunds of 300 each ask for 30,000 against 10,000: at most 33 can succeed.
    const results = await Promise.allSettled(
      Array.from({ length: 100 }, () => client.payments.refund(payment.id, { amount: 300 })),
    );
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected');
    for (const r of refused) {
      expect(r.reason).toBeInstanceOf(PspError);
      expect([409, 422]).toContain((r.reason as { status: number }).status);
    }
    const after = await client.payments.get(payment.id);
    const refunded = after.refunds.filter((r) => r.status === 'succeeded').reduce((s, r) => s + r.amount, 0);
    console.log(
      `[concurrency] refunds: asked=100 succeeded=${ok.length} refused=${refused.length} refunded=${refunded}/10000`,
    );
    expect(ok.length).toBe(33);
    expect(refunded).toBe(9_900);
    expect(after.amount_refunded).toBe(9_900);
    expect(refunded).toBeLessThanOrEqual(after.amount);
  });

  // Under load a call may time out after the service made its payment; the client retries it with the same key
  // and gets the replay (200, `idempotent: true`). That is the promise working, so these tests count calls that
  // succeeded with the right payment, not which attempt answered or whether it was the 201.

  it('100 concurrent creates with one Idempotency-Key make one payment', async () => {
    const key = `concurrent-${crypto.randomUUID()}`;
    const before = ref.stats();
    const results = await Promise.all(
      Array.from({ length: 100 }, () =>
        client.payments.create({ amount: 4_200, order_id: 'same' }, { idempotencyKey: key }).withResponse(),
      ),
    );
    const ids = new Set(results.map((r) => r.data.payment.id));
    const fresh = results.filter((r) => r.response.status === 201).length;
    const replays = results.filter((r) => r.response.status === 200 && r.data.idempotent === true).length;
    console.log(`[concurrency] one key: calls=100 payments=${ids.size} created=${fresh} replays=${replays}`);
    expect(ids.size).toBe(1);
    // Every call answered with that payment, as a creation (at most one) or a replay.
    expect(fresh).toBeLessThanOrEqual(1);
    expect(fresh + replays).toBe(100);
    expect(ref.stats().payments - before.payments).toBe(1);
    const stored = await client.payments.get([...ids][0]!);
    expect(stored).toMatchObject({ amount: 4_200, order_id: 'same' });
  });

  it('1,000 concurrent creates with distinct keys make 1,000 payments, one per key', async () => {
    // 1,000 requests at once on a busy 2-core machine: an attempt may wait long for its turn. The attempt timeout is
    // no promise under test, so it is wide here; the retries and their replays are what this test is about.
    const patient = new PspClient({
      apiKey: ref.api_key,
      baseUrl: ref.base_url,
      timeout: 60_000,
      maxRetries: 4,
    });
    const before = ref.stats();
    const results = await Promise.all(
      Array.from({ length: 1_000 }, (_, i) =>
        patient.payments.create({ amount: 1_000 + i * 1_000 }).withResponse(),
      ),
    );
    const ids = new Set(results.map((r) => r.data.payment.id));
    const keys = new Set(results.map((r) => r.idempotencyKey));
    const replays = results.filter((r) => r.response.status === 200).length;
    console.log(
      `[concurrency] distinct keys: calls=1000 payments=${ids.size} keys=${keys.size} replays=${replays}`,
    );
    expect(ids.size).toBe(1_000);
    expect(keys.size).toBe(1_000);
    // One payment per key: the service holds exactly 1,000 more, and a 200 is only ever a replay.
    expect(ref.stats().payments - before.payments).toBe(1_000);
    for (const r of results) {
      expect([200, 201]).toContain(r.response.status);
      expect(r.data.idempotent === true).toBe(r.response.status === 200);
    }
    // Each call's answer is its own payment (the amounts are distinct) and is what the service stored.
    const stored = await Promise.all(results.map((r) => patient.payments.get(r.data.payment.id)));
    results.forEach((r, i) => {
      expect(r.data.payment.amount).toBe(1_000 + i * 1_000);
      expect(stored[i]).toMatchObject({
        id: r.data.payment.id,
        amount: 1_000 + i * 1_000,
        status: 'pending',
      });
    });
  }, 600_000);
});
