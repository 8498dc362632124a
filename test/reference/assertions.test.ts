// The reference handle's assertions (issue 41 item 3): filters by the journal's and the delivery log's own field
// names, and an error named AssertionError that says what was expected and shows the nearest entries seen; usable
// from vitest, and from node:test (run here in a child process, as a node:test user would).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AssertionError } from '../../src/reference/index.js';
import { setup } from './helpers.js';

let env: ReturnType<typeof setup>;
afterEach(() => env?.ref.close());

/** A reference whose webhooks go to an in-process receiver answering 200, with one payment created and paid. */
async function paid() {
  let answer = 200;
  env = setup({
    journal: { bodies: true },
    webhookFetch: async () => new Response('{}', { status: answer }),
  });
  const endpoint = await env.ref.control.createWebhookEndpoint(env.ref.shop_id, {
    url: 'https://shop.test/hooks',
  });
  const { payment } = await env.createPayment(
    { amount: 1500, order_id: 'A-1' },
    { headers: { 'idempotency-key': 'order-A-1' } },
  );
  await env.ref.control.succeedPayment(payment.id);
  return { payment, endpoint, fail: () => (answer = 500) };
}

let endpointId = '';
/** Waits, on the event loop, until the endpoint's log holds `n` attempts (deliveries run in the background). */
const delivered = async (n: number) => {
  while ((await env.ref.control.listDeliveries(endpointId)).items.length < n)
    await new Promise((resolve) => setImmediate(resolve));
};

describe('assertRequest / refuteRequest', () => {
  it('find a request by the journal field names and a predicate on the redacted body', async () => {
    await paid();
    const entry = env.ref.assertRequest({
      operation: 'payments.create',
      status: 201,
      idempotency_key: 'order-A-1',
      body: (b) => b.order_id === 'A-1',
    });
    expect(entry).toMatchObject({
      method: 'POST',
      path: '/api/v1/public/payments',
      merchant_id: env.ref.merchant_id,
    });
    expect(env.ref.assertRequest({ path: /^\/api\/v1\/public\/payments$/ })).toEqual(entry);
    env.ref.refuteRequest({ operation: 'payments.refund' });
    env.ref.refuteRequest({ operation: 'payments.create', idempotency_key: null });
  });

  it('fail with an AssertionError naming the filter and the nearest entries', async () => {
    await paid();
    let error: unknown;
    try {
      env.ref.assertRequest({ operation: 'payments.create', status: 409 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AssertionError);
    const e = error as AssertionError;
    expect(e.name).toBe('AssertionError');
    expect(e.message).toContain('"operation":"payments.create","status":409');
    expect(e.message).toContain('nearest');
    expect(e.message).toContain('"status":201');
    expect(e.expected).toEqual({ operation: 'payments.create', status: 409 });
    expect((e.actual as Array<{ operation: string }>)[0]!.operation).toBe('payments.create');
    expect(() => env.ref.refuteRequest({ operation: 'payments.create' })).toThrow(
      /expected no request matching/,
    );
  });

  it('never show a secret in a failure', async () => {
    await paid();
    await env.call('/banks/sbp', { headers: { 'idempotency-key': env.ref.api_key } });
    expect(() => env.ref.assertRequest({ status: 418 })).toThrow(AssertionError);
    try {
      env.ref.assertRequest({ status: 418 });
    } catch (e) {
      expect(String((e as Error).message)).not.toContain(env.ref.api_key.slice(-16));
      expect(JSON.stringify((e as AssertionError).actual)).not.toContain(env.ref.api_key.slice(-16));
    }
  });
});

describe('assertWebhookDelivered / refuteWebhookDelivered', () => {
  it('find a 2xx delivery by event name and id; refute what was not delivered', async () => {
    const { endpoint } = await paid();
    endpointId = endpoint.id;
    await delivered(1);
    const d = env.ref.assertWebhookDelivered({ event: 'payment.succeeded' });
    expect(d).toMatchObject({ endpoint_id: endpoint.id, status_code: 200, attempt: 1 });
    expect(env.ref.assertWebhookDelivered({ event_id: d.event_id })).toEqual(d);
    env.ref.refuteWebhookDelivered({ event: 'payment.refunded' });
    expect(() => env.ref.refuteWebhookDelivered({ event: 'payment.succeeded' })).toThrow(AssertionError);
  });

  it('count only answered deliveries: a 500 is not delivered', async () => {
    let answer = 500;
    env = setup({ webhookFetch: async () => new Response('{}', { status: answer }) });
    const endpoint = await env.ref.control.createWebhookEndpoint(env.ref.shop_id, {
      url: 'https://shop.test/hooks',
    });
    endpointId = endpoint.id;
    const { payment } = await env.createPayment({ amount: 1500 });
    await env.ref.control.succeedPayment(payment.id);
    await delivered(1);
    expect(() => env.ref.assertWebhookDelivered({ event: 'payment.succeeded' })).toThrow(
      /expected a delivered webhook \(2xx\).*nearest/s,
    );
    env.ref.refuteWebhookDelivered({ event: 'payment.succeeded' });
    answer = 200;
    await env.ref.control.advanceClock(10); // the first retry
    await delivered(2);
    expect(env.ref.assertWebhookDelivered({ event: 'payment.succeeded' }).attempt).toBe(2);
  });
});

describe('from node:test', () => {
  it('a failed assertion fails a node:test test, naming the filter', { timeout: 60_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'psp-assert-'));
    try {
      const file = join(dir, 'journal.test.mjs');
      const entry = join(import.meta.dirname, '..', '..', 'dist', 'reference', 'index.js');
      writeFileSync(
        file,
        `import { test } from 'node:test';
import { createReference } from ${JSON.stringify(entry)};
test('asserts on the journal', async () => {
  const ref = createReference({ clock: 'manual' });
  try {
    ref.refuteRequest({ operation: 'payments.create' });
    ref.assertRequest({ operation: 'payments.create' });
  } finally {
    await ref.close();
  }
});
`,
      );
      const run = spawnSync(process.execPath, ['--test', file], { encoding: 'utf8', timeout: 60_000 });
      expect(run.status).toBe(1);
      expect(run.stdout).toContain('AssertionError');
      expect(run.stdout).toContain('expected a request matching {"operation":"payments.create"}');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
