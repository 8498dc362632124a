import { afterEach, describe, expect, it } from 'vitest';
import { expectError, payoutInput, setup } from './helpers.js';

let env: ReturnType<typeof setup>;
afterEach(() => env?.ref.close());

describe('API keys (spec 5.1, 5.2)', () => {
  it.each([
    ['no Authorization header', null, {}],
    ['a Basic header', null, { authorization: 'Basic dXNlcjpwYXNz' }],
    ['an empty bearer', null, { authorization: 'Bearer ' }],
    ['a malformed key', 'sk_prod_abcdef_0123456789abcdef', {}],
    ['an unknown key', 'sk_test_abcdef_0123456789abcdef0123456789abcdef', {}],
  ])('is 401 with %s, and never echoes the header', async (_name, key, headers) => {
    env = setup();
    const r = await env.call('/banks/sbp', { key, headers });
    expectError(r, 401, 'unauthorized');
    expect(r.text).not.toContain('0123456789abcdef');
    expect(r.text).not.toContain('dXNlcjpwYXNz');
  });

  it('refuses the admin token on the public API with 401', async () => {
    env = setup();
    const r = await env.call('/banks/sbp', { key: env.ref.admin_token });
    expectError(r, 401, 'unauthorized');
    expect(r.text).not.toContain(env.ref.admin_token);
  });

  it('is 401 for a revoked key; other keys keep working', async () => {
    env = setup();
    const extra = await env.ref.control.createApiKey(env.ref.terminal_id, { mode: 'test' });
    expect((await env.call('/banks/sbp', { key: extra.api_key })).status).toBe(200);
    await env.ref.control.revokeApiKey(extra.id);
    const r = await env.call('/banks/sbp', { key: extra.api_key });
    expectError(r, 401, 'unauthorized');
    expect(r.body.error.message).toContain('revoked');
    expect((await env.call('/banks/sbp')).status).toBe(200);
  });

  it('answers 403 live_not_enabled to a live key until live mode is on, then goes to the fake bank', async () => {
    env = setup();
    const live = await env.ref.control.createApiKey(env.ref.terminal_id, { mode: 'live' });
    expect(live.api_key).toMatch(/^sk_live_[a-z0-9]{6}_/);
    expectError(
      await env.call('/payments', { key: live.api_key, body: { amount: 100 } }),
      403,
      'live_not_enabled',
    );
    expectError(await env.call('/banks/sbp', { key: live.api_key }), 403, 'live_not_enabled');
    await env.ref.control.updateMerchant(env.ref.merchant_id, { live_enabled: true });
    const r = await env.call('/payments', { key: live.api_key, body: { amount: 100 } });
    expect(r.status).toBe(201);
    expect(r.body.mode).toBe('live');
    expect(r.body.simulator).toBeUndefined();
    expect(r.body.bank).toBe('Reference Acquiring Bank');
    expect(r.body.bank_ref).toMatch(/^PAY-[0-9A-F]{16}$/);
    const again = await env.call(`/payments/${r.body.payment.id}`, { key: live.api_key });
    expect(again.status).toBe(200);
    const refused = await env.call('/payments', { key: live.api_key, body: { amount: 10_902 } });
    expect(refused.body).toMatchObject({ mode: 'live', failure_code: 'payment_declined' });
    expect(refused.body.payment.status).toBe('failed');
    const out = await env.call('/payouts', { key: live.api_key, body: payoutInput() });
    expect(out.body).toMatchObject({ mode: 'live', bank: 'Reference Acquiring Bank' });
    expect(out.body.bank_ref).toMatch(/^OUT-/);
  });
});

describe('IP allow-list (spec 5.3)', () => {
  const allow = async (list: string[]) =>
    await env.ref.control.updateMerchant(env.ref.merchant_id, { ip_allow_list: list });

  it('lets everyone in with an empty list', async () => {
    env = setup();
    expect((await env.call('/banks/sbp', { remoteAddress: '198.51.100.7' })).status).toBe(200);
    expect((await env.call('/banks/sbp')).status).toBe(200);
  });

  it.each([
    [['203.0.113.5'], '203.0.113.5', 200],
    [['203.0.113.5'], '203.0.113.6', 403],
    [['203.0.113.0/24'], '203.0.113.200', 200],
    [['203.0.113.0/24'], '203.0.114.1', 403],
    [['203.0.113.5'], '::ffff:203.0.113.5', 200],
    [['2001:db8::1'], '2001:db8:0:0::1', 200],
    [['2001:db8::/32'], '2001:db8:ffff::9', 200],
    [['2001:db8::/32'], '2001:db9::1', 403],
    [['::1'], '127.0.0.1', 403],
    [['10.0.0.0/8', '::1'], '::1', 200],
  ])('with %j, %s gets %i', async (list, address, status) => {
    env = setup();
    await allow(list);
    const r = await env.call('/banks/sbp', { remoteAddress: address });
    if (status === 403) expectError(r, 403, 'ip_not_allowed');
    else expect(r.status).toBe(200);
  });

  it('fails closed when the socket address is unknown', async () => {
    env = setup();
    await allow(['127.0.0.1']);
    expectError(await env.call('/banks/sbp'), 403, 'ip_not_allowed');
  });

  it('ignores X-Forwarded-For unless trustProxy is on, then uses its last hop', async () => {
    env = setup();
    await allow(['203.0.113.5']);
    const xff = { 'x-forwarded-for': '203.0.113.5' };
    expectError(
      await env.call('/banks/sbp', { remoteAddress: '10.0.0.1', headers: xff }),
      403,
      'ip_not_allowed',
    );
    await env.ref.close();
    env = setup({ trustProxy: true });
    await allow(['203.0.113.5']);
    expect((await env.call('/banks/sbp', { remoteAddress: '10.0.0.1', headers: xff })).status).toBe(200);
    const forged = { 'x-forwarded-for': '203.0.113.5, 198.51.100.1' };
    expectError(
      await env.call('/banks/sbp', { remoteAddress: '10.0.0.1', headers: forged }),
      403,
      'ip_not_allowed',
    );
  });

  it('refuses invalid allow-list entries in the cabinet with 400', async () => {
    env = setup();
    for (const bad of ['300.1.1.1', '10.0.0.0/33', 'example.com', '1', '']) {
      expectError(
        await env.admin(`/_cabinet/merchants/${env.ref.merchant_id}`, {
          method: 'PATCH',
          body: { ip_allow_list: [bad] },
        }),
        400,
        'bad_request',
      );
    }
  });
});

describe('request signatures (spec 5.4)', () => {
  const requireSig = async () =>
    await env.ref.control.updateTerminal(env.ref.terminal_id, { require_signature: true });

  it('accepts an unsigned request while signatures are optional, and checks a signature that is sent', async () => {
    env = setup();
    expect((await env.call('/payments', { body: { amount: 100 } })).status).toBe(201);
    expect(
      (await env.call('/payments', { body: { amount: 100 }, sign: env.ref.signing_secret })).status,
    ).toBe(201);
    expectError(
      await env.call('/payments', { body: { amount: 100 }, sign: 'thm_wrong' }),
      400,
      'invalid_signature',
    );
  });

  it('requires the header when the terminal says so (400 signature_required)', async () => {
    env = setup();
    await requireSig();
    const r = await env.call('/payments', { body: { amount: 100 } });
    expectError(r, 400, 'signature_required');
    expectError(await env.call('/banks/sbp'), 400, 'signature_required');
  });

  it('signs the raw bytes exactly as sent, and the empty string for a GET', async () => {
    env = setup();
    await requireSig();
    const secret = env.ref.signing_secret;
    const raw = '{ "amount" :100 }';
    expect((await env.call('/payments', { raw, sign: secret })).status).toBe(201);
    expect((await env.call('/banks/sbp', { sign: secret })).status).toBe(200);
    // A signature of the re-serialised body does not match the bytes sent.
    const { hmacSha256Hex } = await import('../../src/internal/hmac.js');
    const wrong = `sha256=${hmacSha256Hex(secret, '{"amount":100}')}`;
    expectError(
      await env.call('/payments', { raw, headers: { 'x-psp-signature': wrong } }),
      400,
      'invalid_signature',
    );
  });

  it.each(['sha256=ABC', 'sha1=0000', `sha256=${'A'.repeat(64)}`, 'garbage'])(
    'refuses the malformed header %j',
    async (h) => {
      env = setup();
      expectError(
        await env.call('/banks/sbp', { headers: { 'x-psp-signature': h } }),
        400,
        'invalid_signature',
      );
    },
  );

  it('never puts the signing secret in an error', async () => {
    env = setup();
    await requireSig();
    const r = await env.call('/payments', { body: { amount: 100 }, sign: 'thm_wrong' });
    expect(r.text).not.toContain(env.ref.signing_secret);
  });
});

describe('merchant blocks (spec 7)', () => {
  it.each(['aml_blocked', 'forbidden_purpose'] as const)(
    'refuses money movement with 403 %s',
    async (block) => {
      env = setup();
      const c = await env.createPayment();
      await env.ref.control.succeedPayment(c.payment.id);
      await env.ref.control.updateMerchant(env.ref.merchant_id, { block });
      expectError(await env.call('/payments', { body: { amount: 100 } }), 403, block);
      expectError(await env.call('/payouts', { body: payoutInput() }), 403, block);
      expectError(await env.call(`/payments/${c.payment.id}/refund`, { body: {} }), 403, block);
      // Reading stays possible, so a blocked merchant can still reconcile.
      expect((await env.call(`/payments/${c.payment.id}`)).status).toBe(200);
      await env.ref.control.updateMerchant(env.ref.merchant_id, { block: null });
      expect((await env.call('/payments', { body: { amount: 100 } })).status).toBe(201);
    },
  );
});

describe('rate limit (spec 8)', () => {
  it('is 429 rate_limited with an integer Retry-After once the window is full, and resets after it', async () => {
    env = setup();
    await env.ref.control.updateMerchant(env.ref.merchant_id, {
      rate_limit: { limit: 3, window_seconds: 10 },
    });
    for (let i = 0; i < 3; i++) expect((await env.call('/banks/sbp')).status).toBe(200);
    await env.advance(2.5);
    const r = await env.call('/payments', { body: { amount: 100 } });
    expectError(r, 429, 'rate_limited');
    expect(r.headers.get('retry-after')).toBe('8');
    await env.advance(7.5);
    expect((await env.call('/banks/sbp')).status).toBe(200);
  });

  it('limits each merchant separately and defaults to 1000 requests per second', async () => {
    env = setup();
    expect((await env.ref.control.getMerchant(env.ref.merchant_id)).rate_limit).toEqual({
      limit: 1000,
      window_seconds: 1,
    });
    await env.ref.control.updateMerchant(env.ref.merchant_id, {
      rate_limit: { limit: 1, window_seconds: 1 },
    });
    const other = await env.ref.control.createMerchant();
    expect((await env.call('/banks/sbp')).status).toBe(200);
    expectError(await env.call('/banks/sbp'), 429, 'rate_limited');
    expect((await env.call('/banks/sbp', { key: other.api_key })).status).toBe(200);
  });

  it('creates nothing when it refuses', async () => {
    env = setup();
    await env.ref.control.updateMerchant(env.ref.merchant_id, {
      rate_limit: { limit: 1, window_seconds: 60 },
    });
    const c = await env.createPayment();
    expectError(await env.call(`/payments/${c.payment.id}/cancel`, { method: 'POST' }), 429);
    await env.ref.control.updateMerchant(env.ref.merchant_id, {
      rate_limit: { limit: 100, window_seconds: 60 },
    });
    expect((await env.call(`/payments/${c.payment.id}`)).body.status).toBe('pending');
  });
});
