import { afterEach, describe, expect, it } from 'vitest';
import { type RunningReference, startReference } from '../../src/reference/start.js';
import { hmacSha256Hex } from '../../src/internal/hmac.js';

let ref: RunningReference | undefined;
afterEach(async () => {
  await ref?.close();
  ref = undefined;
});

describe('a full payment over real HTTP', () => {
  it('create, pay on the page, refund, with the socket address judged by the allow-list', async () => {
    ref = await startReference({ host: '127.0.0.1', port: 0, clock: 'manual' });
    const auth = { authorization: `Bearer ${ref.api_key}`, 'content-type': 'application/json' };
    const api = `${ref.base_url}/api/v1/public`;

    const created = await fetch(`${api}/payments`, {
      method: 'POST',
      headers: { ...auth, 'idempotency-key': 'flow-1' },
      body: JSON.stringify({ amount: 150_000, order_id: 'A-1', return_url: 'https://shop.example/done' }),
    });
    expect(created.status).toBe(201);
    const { payment, payment_url } = (await created.json()) as {
      payment: { id: string };
      payment_url: string;
    };
    expect(payment_url).toBe(`${ref.pay_url}/${payment.id}`);

    const page = await fetch(payment_url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('A-1');
    const paid = await fetch(`${payment_url}/pay`, { method: 'POST', redirect: 'manual' });
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe('https://shop.example/done');

    const refund = await fetch(`${api}/payments/${payment.id}/refund`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ amount: 50_000 }),
    });
    expect(refund.status).toBe(201);
    const after = (await (await fetch(`${api}/payments/${payment.id}`, { headers: auth })).json()) as Record<
      string,
      unknown
    >;
    expect(after).toMatchObject({ status: 'succeeded', amount_refunded: 50_000 });

    // The socket's address is 127.0.0.1: an allow-list without it refuses, with it admits.
    await ref.control.updateMerchant(ref.merchant_id, { ip_allow_list: ['10.0.0.0/8'] });
    const refused = await fetch(`${api}/banks/sbp`, { headers: { ...auth, 'x-forwarded-for': '10.1.1.1' } });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('ip_not_allowed');
    await ref.control.updateMerchant(ref.merchant_id, { ip_allow_list: ['127.0.0.1/32', '::1'] });
    expect((await fetch(`${api}/banks/sbp`, { headers: auth })).status).toBe(200);
  });

  it('signs raw bytes over the wire and answers 400 bad_request (payload too large) for an oversized body', async () => {
    ref = await startReference({ host: '127.0.0.1', port: 0, clock: 'manual' });
    await ref.control.updateTerminal(ref.terminal_id, { require_signature: true });
    const body = '{"amount": 1000}';
    const headers = {
      authorization: `Bearer ${ref.api_key}`,
      'content-type': 'application/json',
      'x-psp-signature': `sha256=${hmacSha256Hex(ref.signing_secret, body)}`,
    };
    const ok = await fetch(`${ref.base_url}/api/v1/public/payments`, { method: 'POST', headers, body });
    expect(ok.status).toBe(201);
    const big = await fetch(`${ref.base_url}/api/v1/public/payments`, {
      method: 'POST',
      headers: { ...headers, 'x-psp-signature': 'sha256=' + '0'.repeat(64) },
      body: 'x'.repeat(1024 * 1024 + 1),
    });
    expect(big.status).toBe(400);
    const refusal = (await big.json()) as { error: { code: string; message: string } };
    expect(refusal.error.code).toBe('bad_request');
    expect(refusal.error.message).toMatch(/^Payload too large/);
  });
});
