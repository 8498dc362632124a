import { afterEach, describe, expect, it } from 'vitest';
import { PspClient } from '../../src/index.js';
import { listenNode, type NodeServer } from '../../src/reference/adapters/node-http.js';
import { type RunningShadow, startShadow } from '../../src/reference/shadow/index.js';
import { type RunningReference, startReference } from '../../src/reference/start.js';

// Shadow mode (issue 33, item 4): the upstream answers, the in-process reference replays, the report says where
// they part. Here the upstream is a reference too: the same one (no difference) or a mutated one.

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function upstreamReference(): Promise<RunningReference> {
  const ref = await startReference({ port: 0, clock: 'manual' });
  closers.push(() => ref.close());
  return ref;
}

async function shadowOf(upstream: string, options: { maxReport?: number } = {}): Promise<RunningShadow> {
  const shadow = await startShadow({ upstream, port: 0, reference: { clock: 'manual' }, ...options });
  closers.push(() => shadow.close());
  return shadow;
}

/**
 * A test-only mutant of the service: a proxy in front of `target` that answers a payment creation with 200
 * instead of 201 and without the payment's `terminal_name`. Users cannot switch it on: it lives in this file.
 */
async function mutant(target: string): Promise<NodeServer> {
  const server = await listenNode(async (request) => {
    const url = new URL(request.url);
    const body = request.method === 'POST' ? await request.arrayBuffer() : undefined;
    const headers = new Headers(request.headers);
    headers.delete('host');
    headers.delete('content-length');
    const res = await fetch(`${target}${url.pathname}${url.search}`, {
      method: request.method,
      headers,
      ...(body ? { body } : {}),
    });
    if (request.method !== 'POST' || url.pathname !== '/api/v1/public/payments' || res.status !== 201)
      return res;
    const answer = (await res.json()) as { payment: Record<string, unknown> };
    delete answer.payment.terminal_name;
    return new Response(JSON.stringify(answer), {
      status: 200,
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
  });
  closers.push(() => server.close());
  return server;
}

/** Traffic of a merchant's app: creations, reads of what they made (by the upstream's ids), refusals. */
async function traffic(base: string, apiKey: string, advance: (seconds: number) => Promise<void>) {
  const psp = new PspClient({ apiKey, baseUrl: base, maxRetries: 0 });
  await psp.banks.list();
  const { payment } = await psp.payments.create({ amount: 1000, description: 'd', order_id: 'A-1' });
  await psp.payments.get(payment.id);
  // A refund of a pending payment: 409 on both sides only if the id reached the reference's own payment.
  await expect(psp.payments.refund(payment.id, { amount: 100 })).rejects.toMatchObject({ status: 409 });
  await psp.payments.cancel(payment.id);
  await psp.payments.get(payment.id);
  await psp.payments.create({ amount: 1902 }); // refused at creation by the planned outcome
  const key = '0b7f2c9e-1d3a-4c1b-8e8f-0a1b2c3d4e5f';
  await psp.payments.create({ amount: 2000 }, { idempotencyKey: key });
  await psp.payments.create({ amount: 2000 }, { idempotencyKey: key }); // replayed
  const { payout } = await psp.payouts.create({
    amount: 5000,
    phone: '+79001234567',
    bank_id: '100000000111',
  });
  await psp.payouts.get(payout.id);
  await advance(5); // the test bank settles payouts after 5 s, on both sides
  expect((await psp.payouts.get(payout.id)).status).toBe('succeeded');
  // A body the client itself would refuse: sent by hand.
  const bad = await fetch(`${base}/api/v1/public/payments`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: '{"amount":-1}',
  });
  expect(bad.status).toBe(400);
  await expect(psp.payments.get('7d3f9a2e-1b4c-4d5e-8f6a-7b8c9d0e1f2a')).rejects.toMatchObject({
    status: 404,
  });
  return payment.id;
}

describe('shadow mode', () => {
  it('finds no difference when the upstream is the reference, ids mapped for every follow-up', async () => {
    const up = await upstreamReference();
    const shadow = await shadowOf(up.base_url);
    const id = await traffic(shadow.url, up.api_key, async (seconds) => {
      await up.control.advanceClock(seconds);
      await shadow.reference.control.advanceClock(seconds);
    });
    const psp = new PspClient({ apiKey: up.api_key, baseUrl: shadow.url, maxRetries: 0 });
    // The caller got the upstream's answers: its ids are the upstream's.
    expect(up.stats().payments).toBe(3);
    expect((await psp.payments.get(id)).id).toBe(id);
    const report = shadow.report();
    expect(report).toEqual({ compared: 15, differing: 0, dropped: 0, too_large: 0, items: [] });
    expect(shadow.reference.stats().payments).toBe(3);
  });

  it("reports exactly a mutated upstream's differences, with both answers and no secret", async () => {
    const up = await upstreamReference();
    const bad = await mutant(up.base_url);
    const shadow = await shadowOf(bad.url);
    const psp = new PspClient({ apiKey: up.api_key, baseUrl: shadow.url, maxRetries: 0 });
    const { payment } = await psp.payments.create({ amount: 1000, description: 'd' });
    await psp.payments.get(payment.id);
    await psp.payments.create({ amount: 1000, metadata: { note: `pasted ${up.api_key}` } });

    const report = shadow.report();
    expect(report).toMatchObject({ compared: 3, differing: 2, dropped: 0 });
    const [first, second] = report.items;
    expect(first).toMatchObject({
      seq: 1,
      operation: 'payments.create',
      method: 'POST',
      path: '/api/v1/public/payments',
      upstream: { status: 200 },
      reference: { status: 201, body: { payment: { terminal_name: 'Reference merchant terminal' } } },
    });
    expect(first?.differences).toEqual([
      { kind: 'status', upstream: 200, replay: 201 },
      {
        kind: 'missing_field',
        field: 'payment.terminal_name',
        upstream: undefined,
        replay: 'Reference merchant terminal',
      },
    ]);
    expect(second?.seq).toBe(3);
    expect(second?.differences.map((d) => [d.kind, d.field])).toEqual([
      ['status', undefined],
      ['missing_field', 'payment.terminal_name'],
    ]);

    // Over HTTP with the admin token of the shadow's reference; not without it.
    const refused = await fetch(`${shadow.url}/_shadow/report`);
    expect(refused.status).toBe(401);
    const res = await fetch(`${shadow.url}/_shadow/report`, {
      headers: { authorization: `Bearer ${shadow.admin_token}` },
    });
    const text = await res.text();
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(report)));
    for (const secret of [up.api_key, up.signing_secret, shadow.reference.api_key, shadow.admin_token]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(secret.slice(-16));
    }
    expect(text).toContain('sk_test_***');
  });

  it('keeps the newest maxReport differing requests and counts the rest', async () => {
    const up = await upstreamReference();
    const bad = await mutant(up.base_url);
    const shadow = await shadowOf(bad.url, { maxReport: 2 });
    const psp = new PspClient({ apiKey: up.api_key, baseUrl: shadow.url, maxRetries: 0 });
    for (let i = 0; i < 4; i++) await psp.payments.create({ amount: 1000 + i, description: 'd' });
    const report = shadow.report();
    expect(report).toMatchObject({ compared: 4, differing: 4, dropped: 2 });
    expect(report.items.map((item) => item.seq)).toEqual([3, 4]);
  });

  it('answers 503 service_unavailable when the upstream cannot be reached, and passes the rest through', async () => {
    const up = await upstreamReference();
    const shadow = await shadowOf(up.base_url);
    // Not the public API: passed through, not compared.
    expect((await fetch(`${shadow.url}/openapi.json`)).status).toBe(200);
    expect(shadow.report().compared).toBe(0);
    await up.close();
    const res = await fetch(`${shadow.url}/api/v1/public/banks/sbp`, {
      headers: { authorization: `Bearer ${up.api_key}` },
    });
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('service_unavailable');
  });
});
