import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/reference/domain/defaults.js';
import { expectError, PUBLIC, payoutInput, setup } from './helpers.js';

// The reference's refusals (issue 13, hole 8): each at a status the spec lists for the operation, each with its own
// code, and no rule stricter than the spec's.

let env: ReturnType<typeof setup>;
afterEach(() => env?.ref.close());

async function succeeded(amount = 1000): Promise<string> {
  const { payment } = await env.createPayment({ amount });
  await env.ref.control.succeedPayment(payment.id);
  return payment.id as string;
}

describe('a refund body that is not an object', () => {
  // Whitespace is a body too, and not JSON (RFC 8259 asks for a value): only zero bytes mean "refund everything".
  it.each(['null', '[]', '"x"', '1', ' ', '\n', '\r\n\t '])(
    'is 400 for the body %j and refunds nothing',
    async (raw) => {
      env = setup();
      const id = await succeeded();
      const r = await env.call(`/payments/${id}/refund`, { raw });
      expectError(r, 400, 'bad_request');
      const after = await env.call(`/payments/${id}`);
      expect(after.body.amount_refunded).toBe(0);
      expect(after.body.refunds).toEqual([]);
    },
  );

  it('an absent body still refunds the whole balance (spec 4.4)', async () => {
    env = setup();
    const id = await succeeded();
    const r = await env.call(`/payments/${id}/refund`, { method: 'POST' });
    expect(r.status, r.text).toBe(201);
    expect(r.body.amount).toBe(1000);
  });
});

describe('refusals take a status the spec lists for the operation, and keep their own code', () => {
  it.each([
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/json; charset=latin1',
  ])(
    'a create sent as %s is 400 bad_request saying "Unsupported media type" (section 7 names bad_request; no 415)',
    async (type) => {
      env = setup();
      const r = await env.call('/payments', { raw: 'amount=100', headers: { 'content-type': type } });
      expectError(r, 400, 'bad_request');
      expect(r.body.error.message).toMatch(/^Unsupported media type/);
    },
  );

  it('a refund and a payout sent form-encoded are 400 bad_request (unsupported media type) too', async () => {
    env = setup();
    const id = await succeeded();
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    expectError(
      await env.call(`/payments/${id}/refund`, { raw: 'amount=1', headers: form }),
      400,
      'bad_request',
    );
    expectError(await env.call('/payouts', { raw: 'amount=1', headers: form }), 400, 'bad_request');
  });

  it('a body over 1 MiB is 400 bad_request saying "Payload too large", declared or streamed', async () => {
    env = setup();
    const big = JSON.stringify({ amount: 100, description: 'x'.repeat(DEFAULTS.maxBodyBytes) });
    const declared = await env.call('/payments', { raw: big });
    expectError(declared, 400, 'bad_request');
    expect(declared.body.error.message).toMatch(/^Payload too large/);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > 2 * DEFAULTS.maxBodyBytes) return controller.close();
        sent += 64 * 1024;
        controller.enqueue(new Uint8Array(64 * 1024).fill(0x20));
      },
    });
    const res = await env.ref.fetch(
      new Request(`${PUBLIC}/payouts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${env.ref.api_key}`, 'content-type': 'application/json' },
        body: stream,
        duplex: 'half',
      } as RequestInit),
    );
    expect(res.status).toBe(400);
    const streamed = (await res.json()) as { error: { code: string; message: string } };
    expect(streamed.error.code).toBe('bad_request');
    expect(streamed.error.message).toMatch(/^Payload too large/);
  });
});

describe('API keys: malformed and unknown are told apart (spec 5.2)', () => {
  it('a key of the spec form that was never issued is "not recognised", not "malformed"', async () => {
    env = setup();
    const r = await env.call('/banks/sbp', { key: 'sk_test_abc123_secret' });
    expectError(r, 401, 'unauthorized');
    expect(r.body.error.message).toContain('not recognised');
    expect(r.body.error.message).not.toContain('malformed');
  });

  it.each(['sk_prod_abc123_secret', 'sk_test_abc12_secret', 'sk_test_abc123_', 'pk_test_abc123_secret'])(
    '%s is malformed',
    async (key) => {
      env = setup();
      const r = await env.call('/banks/sbp', { key });
      expectError(r, 401, 'unauthorized');
      expect(r.body.error.message).toContain('malformed');
    },
  );
});

describe('no rule stricter than the spec', () => {
  it('an Idempotency-Key with inner spaces is a key (spec 5.6: a string of at most 64 characters)', async () => {
    env = setup();
    const h = { 'idempotency-key': 'order 42 attempt 1' };
    const a = await env.call('/payments', { body: { amount: 100 }, headers: h });
    const b = await env.call('/payments', { body: { amount: 100 }, headers: h });
    expect([a.status, b.status], b.text).toEqual([201, 200]);
    expect(b.body.payment.id).toBe(a.body.payment.id);
    const id = await succeeded();
    const r = await env.call(`/payments/${id}/refund`, { body: { amount: 1 }, headers: h });
    expect(r.status, r.text).toBe(409); // the same key on another route
    const p = await env.call('/payouts', { body: payoutInput(), headers: { 'idempotency-key': 'payout 1' } });
    expect(p.status, p.text).toBe(201);
  });

  it.each(['shopapp://orders/42', 'https://shop.example/back', 'com.shop.app:/return'])(
    'a return_url %s is an absolute URI (spec 2.2: string uri)',
    async (url) => {
      env = setup();
      const c = await env.createPayment({ amount: 100, return_url: url });
      expect(c.payment.return_url).toBe(url);
    },
  );

  it.each(['javascript:alert(1)', 'data:text/html,x', '/orders/42', 'orders/42'])(
    'a return_url %s is refused: not absolute, or run by the browser rather than opened',
    async (url) => {
      env = setup();
      const r = await env.call('/payments', { body: { amount: 100, return_url: url } });
      expectError(r, 400, 'bad_request');
      expect(r.body.error.message).toContain('return_url');
    },
  );

  it('a webhook_url with a user name or password is refused, saying so', async () => {
    env = setup();
    for (const url of ['https://user:pass@hooks.example/psp', 'https://user@hooks.example/psp']) {
      const r = await env.call('/payments', { body: { amount: 100, webhook_url: url } });
      expectError(r, 400, 'bad_request');
      expect(r.body.error.message).toContain(
        'webhook_url: must be an absolute http(s) URL in ASCII (an international host as xn--), without a user name or password',
      );
      expect(r.body.error.message).not.toContain('pass@');
    }
    const app = await env.call('/payments', { body: { amount: 100, webhook_url: 'shopapp://hook' } });
    expectError(app, 400, 'bad_request');
    expect(app.body.error.message).toContain('webhook_url: must be an absolute http(s) URL');
    expect(env.ref.stats().payments).toBe(0);
  });
});
