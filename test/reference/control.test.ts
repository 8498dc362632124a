import { afterEach, describe, expect, it } from 'vitest';
import { expectError, setup } from './helpers.js';

let env: ReturnType<typeof setup>;
afterEach(() => env?.ref.close());

describe('admin authentication of /_cabinet and /_simulator', () => {
  it.each(['/_cabinet/merchants', '/_simulator/clock'])(
    'refuses %s without the admin token, and with an API key',
    async (path) => {
      env = setup();
      expectError(await env.call(path, { key: null }), 401, 'unauthorized');
      const r = await env.call(path);
      expectError(r, 401, 'unauthorized');
      expect(r.text).not.toContain(env.ref.api_key);
      expectError(await env.call(path, { key: 'adm_wrong' }), 401, 'unauthorized');
    },
  );
});

describe('/_cabinet', () => {
  it('POST /merchants makes a merchant with a shop, a terminal, a working test key and a signing secret', async () => {
    env = setup();
    const r = await env.admin('/_cabinet/merchants', { body: { name: 'Coffee' } });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual([
      'api_key',
      'merchant_admin_token',
      'merchant_id',
      'shop_id',
      'signing_secret',
      'terminal_id',
    ]);
    expect(r.body.merchant_admin_token).toMatch(/^adm_[a-z0-9]{40}$/);
    expect(r.body.api_key).toMatch(/^sk_test_[a-z0-9]{6}_/);
    expect(r.body.signing_secret).toMatch(/^thm_/);
    expect((await env.call('/banks/sbp', { key: r.body.api_key })).status).toBe(200);
    expect((await env.admin('/_cabinet/merchants', { method: 'POST' })).status).toBe(201);
    expectError(await env.admin('/_cabinet/merchants', { body: { name: 5 } }), 400, 'bad_request');
  });

  it('PATCH /merchants/{id} changes settings and answers them', async () => {
    env = setup();
    const id = env.ref.merchant_id;
    const r = await env.admin(`/_cabinet/merchants/${id}`, {
      method: 'PATCH',
      body: {
        live_enabled: true,
        ip_allow_list: ['10.0.0.0/8'],
        block: 'aml_blocked',
        rate_limit: { limit: 5, window_seconds: 2 },
      },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      merchant_id: id,
      name: 'Reference merchant',
      live_enabled: true,
      ip_allow_list: ['10.0.0.0/8'],
      block: 'aml_blocked',
      rate_limit: { limit: 5, window_seconds: 2 },
      payouts_enabled: true,
    });
    expect((await env.admin(`/_cabinet/merchants/${id}`)).body).toEqual(r.body);
    const back = await env.admin(`/_cabinet/merchants/${id}`, {
      method: 'PATCH',
      body: { block: null, ip_allow_list: [] },
    });
    expect(back.body).toMatchObject({ block: null, ip_allow_list: [] });
  });

  it.each([
    { live_enabled: 'yes' },
    { block: 'fraud' },
    { rate_limit: { limit: 0, window_seconds: 1 } },
    { rate_limit: { limit: 5 } },
    { ip_allow_list: '10.0.0.1' },
    { unknown: true },
  ])('PATCH /merchants refuses %j with 400 and changes nothing', async (body) => {
    env = setup();
    const id = env.ref.merchant_id;
    const before = await env.ref.control.getMerchant(id);
    expectError(await env.admin(`/_cabinet/merchants/${id}`, { method: 'PATCH', body }), 400, 'bad_request');
    expect(await env.ref.control.getMerchant(id)).toEqual(before);
  });

  it('is 404 for unknown merchants, terminals, shops, keys and endpoints', async () => {
    env = setup();
    const u = '4a1f1c55-9b0b-4f43-9b7e-5d0f1f8f0a11';
    expectError(await env.admin(`/_cabinet/merchants/${u}`, { method: 'PATCH', body: {} }), 404, 'not_found');
    expectError(
      await env.admin(`/_cabinet/terminals/${u}`, { method: 'PATCH', body: { require_signature: true } }),
      404,
    );
    expectError(await env.admin(`/_cabinet/terminals/${u}/api-keys`, { body: { mode: 'test' } }), 404);
    expectError(await env.admin(`/_cabinet/api-keys/${u}`, { method: 'DELETE' }), 404);
    expectError(
      await env.admin(`/_cabinet/shops/${u}/webhook-endpoints`, { body: { url: 'https://x.example' } }),
      404,
    );
    expectError(await env.admin(`/_cabinet/webhook-endpoints/${u}/rotate-secret`, { method: 'POST' }), 404);
    expectError(await env.admin(`/_cabinet/webhook-endpoints/${u}`, { method: 'DELETE' }), 404);
    expectError(await env.admin(`/_cabinet/webhook-endpoints/${u}/deliveries`), 404);
    expectError(await env.admin('/_cabinet/events/evt_nope/resend', { method: 'POST' }), 404);
  });

  it('PATCH /terminals/{id} sets require_signature', async () => {
    env = setup();
    const t = env.ref.terminal_id;
    const r = await env.admin(`/_cabinet/terminals/${t}`, {
      method: 'PATCH',
      body: { require_signature: true },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      terminal_id: t,
      require_signature: true,
      merchant_id: env.ref.merchant_id,
    });
    expectError(await env.call('/banks/sbp'), 400, 'signature_required');
    expectError(
      await env.admin(`/_cabinet/terminals/${t}`, { method: 'PATCH', body: {} }),
      400,
      'bad_request',
    );
  });

  it('issues, lists and revokes API keys; the full secret is shown once', async () => {
    env = setup();
    const t = env.ref.terminal_id;
    const k = await env.admin(`/_cabinet/terminals/${t}/api-keys`, { body: { mode: 'live' } });
    expect(k.status).toBe(201);
    expect(k.body.api_key).toMatch(/^sk_live_/);
    const list = await env.admin(`/_cabinet/terminals/${t}/api-keys`);
    expect(list.body.items).toHaveLength(2);
    expect(list.text).not.toContain(k.body.api_key);
    expect(list.text).not.toContain(env.ref.api_key);
    expectError(
      await env.admin(`/_cabinet/terminals/${t}/api-keys`, { body: { mode: 'prod' } }),
      400,
      'bad_request',
    );
    const first = list.body.items.find((i: { mode: string }) => i.mode === 'test');
    const del = await env.admin(`/_cabinet/api-keys/${first.id}`, { method: 'DELETE' });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expectError(await env.call('/banks/sbp'), 401, 'unauthorized');
  });

  it('creates, rotates and deletes webhook endpoints and reads their deliveries', async () => {
    const seen: Request[] = [];
    env = setup({
      webhookFetch: async (input, init) => {
        seen.push(new Request(input, init));
        return new Response('ok');
      },
    });
    const shop = env.ref.shop_id;
    const e = await env.admin(`/_cabinet/shops/${shop}/webhook-endpoints`, {
      body: { url: 'https://shop.example/hooks', events: ['payment.cancelled'] },
    });
    expect(e.status).toBe(201);
    expect(e.body).toMatchObject({
      url: 'https://shop.example/hooks',
      events: ['payment.cancelled'],
      signature_version: 'v2',
    });
    expect(e.body.secret).toMatch(/^whs_/);
    expectError(
      await env.admin(`/_cabinet/shops/${shop}/webhook-endpoints`, { body: { url: 5 } }),
      400,
      'bad_request',
    );
    const c = await env.createPayment();
    await env.call(`/payments/${c.payment.id}/cancel`, { method: 'POST' });
    await env.advance(0);
    for (let i = 0; i < 20 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(seen).toHaveLength(1);
    const d = await env.admin(`/_cabinet/webhook-endpoints/${e.body.id}/deliveries`);
    expect(d.status).toBe(200);
    expect(d.body.items[0]).toMatchObject({ event: 'payment.cancelled', attempt: 1, status_code: 200 });
    const resend = await env.admin(`/_cabinet/events/${d.body.items[0].event_id}/resend`, { method: 'POST' });
    expect(resend.status).toBe(202);
    const rot = await env.admin(`/_cabinet/webhook-endpoints/${e.body.id}/rotate-secret`, { method: 'POST' });
    expect(rot.status).toBe(200);
    expect(rot.body.secret).toMatch(/^whs_/);
    expect(rot.body.secret).not.toBe(e.body.secret);
    expect((await env.admin(`/_cabinet/webhook-endpoints/${e.body.id}`, { method: 'DELETE' })).status).toBe(
      204,
    );
    expectError(
      await env.admin(`/_cabinet/webhook-endpoints/${e.body.id}`, { method: 'DELETE' }),
      404,
      'not_found',
    );
  });
});

describe('/_simulator', () => {
  it.each([
    ['succeed', 'succeeded'],
    ['fail', 'failed'],
    ['expire', 'expired'],
    ['process', 'processing'],
  ])('POST /payments/{id}/%s moves a pending payment to %s', async (action, to) => {
    env = setup();
    const c = await env.createPayment();
    const r = await env.admin(`/_simulator/payments/${c.payment.id}/${action}`, { method: 'POST' });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe(to);
    expect((await env.call(`/payments/${c.payment.id}`)).body.status).toBe(to);
  });

  it('allows processing -> succeeded | failed | expired and nothing out of a final status (409)', async () => {
    env = setup();
    for (const action of ['succeed', 'fail', 'expire']) {
      const c = await env.createPayment();
      await env.admin(`/_simulator/payments/${c.payment.id}/process`, { method: 'POST' });
      expectError(
        await env.admin(`/_simulator/payments/${c.payment.id}/process`, { method: 'POST' }),
        409,
        'invalid_transition',
      );
      expect(
        (await env.admin(`/_simulator/payments/${c.payment.id}/${action}`, { method: 'POST' })).status,
      ).toBe(200);
      for (const again of ['succeed', 'fail', 'expire', 'process']) {
        expectError(
          await env.admin(`/_simulator/payments/${c.payment.id}/${again}`, { method: 'POST' }),
          409,
          'invalid_transition',
        );
      }
    }
  });

  it('moves payouts pending -> succeeded | failed, and 409 after', async () => {
    env = setup();
    for (const [action, to] of [
      ['succeed', 'succeeded'],
      ['fail', 'failed'],
    ]) {
      const p = await env.call('/payouts', {
        body: { amount: 100, phone: '+79990000000', bank_id: '100000000111' },
      });
      const r = await env.admin(`/_simulator/payouts/${p.body.payout.id}/${action}`, { method: 'POST' });
      expect(r.status).toBe(200);
      expect(r.body.status).toBe(to);
      expectError(
        await env.admin(`/_simulator/payouts/${p.body.payout.id}/succeed`, { method: 'POST' }),
        409,
        'invalid_transition',
      );
      await env.advance(10);
      expect((await env.call(`/payouts/${p.body.payout.id}`)).body.status).toBe(to);
    }
  });

  it('is 404 for unknown payments and payouts', async () => {
    env = setup();
    const u = '4a1f1c55-9b0b-4f43-9b7e-5d0f1f8f0a11';
    expectError(await env.admin(`/_simulator/payments/${u}/succeed`, { method: 'POST' }), 404, 'not_found');
    expectError(await env.admin(`/_simulator/payouts/${u}/fail`, { method: 'POST' }), 404, 'not_found');
    expectError(await env.admin('/_simulator/payments/x/succeed', { method: 'POST' }), 404, 'not_found');
  });

  it('reads and advances the manual clock', async () => {
    env = setup();
    const r = await env.admin('/_simulator/clock');
    expect(r.body).toEqual({ now: '2026-05-06T10:00:00.000Z', mode: 'manual' });
    const a = await env.admin('/_simulator/clock/advance', { body: { seconds: 90.5 } });
    expect(a.status).toBe(200);
    expect(a.body).toEqual({ now: '2026-05-06T10:01:30.500Z' });
    expect(await env.ref.control.advanceClock(30)).toEqual({ now: '2026-05-06T10:02:00.500Z' });
    for (const body of [{}, { seconds: -1 }, { seconds: 'x' }, [], 5, { seconds: 1, more: 1 }]) {
      expectError(await env.admin('/_simulator/clock/advance', { body }), 400, 'bad_request');
    }
    expect((await env.ref.control.getClock()).now).toBe('2026-05-06T10:02:00.500Z');
  });

  it('bounds what the admin token can make it keep: merchants, keys per terminal, endpoints per shop (409)', async () => {
    // Each merchant brings its own 128 MiB storage bound and each endpoint its own pending-delivery bound: without
    // a count, many requests of the admin token grow memory without bound.
    env = setup();
    const cab = env.ref.control;
    for (let i = 1; i < 1000; i++) await cab.createMerchant({});
    const m = await env.admin('/_cabinet/merchants', { body: {} });
    expectError(m, 409, 'too_many_merchants');
    expect(env.ref.stats().merchants).toBe(1000);
    for (let i = 1; i < 100; i++) await cab.createApiKey(env.ref.terminal_id, { mode: 'test' });
    const k = await env.admin(`/_cabinet/terminals/${env.ref.terminal_id}/api-keys`, {
      body: { mode: 'live' },
    });
    expectError(k, 409, 'too_many_api_keys');
    expect((await cab.listApiKeys(env.ref.terminal_id)).items).toHaveLength(100);
    const shop = env.ref.shop_id;
    for (let i = 0; i < 16; i++) await cab.createWebhookEndpoint(shop, { url: `https://hooks.test/${i}` });
    const e = await env.admin(`/_cabinet/shops/${shop}/webhook-endpoints`, {
      body: { url: 'https://hooks.test/x' },
    });
    expectError(e, 409, 'too_many_webhook_endpoints');
    // A bad body is still a 400 naming the field, and a deleted endpoint frees its place.
    expectError(await env.admin(`/_cabinet/shops/${shop}/webhook-endpoints`, { body: { url: 1 } }), 400);
    const first = (await env.ref.control.snapshot()).webhook_endpoints[0]!.id;
    await cab.deleteWebhookEndpoint(first);
    expect((await cab.createWebhookEndpoint(shop, { url: 'https://hooks.test/x' })).secret).toMatch(/^whs_/);
  });

  it('names the broken bound, not the type, for a value of the right type out of range', async () => {
    // zod/mini gave a type's message to every issue: a limit of 0 was refused as "must be an integer".
    env = setup();
    const id = env.ref.merchant_id;
    const cases: [string, unknown, string][] = [
      [
        `/_cabinet/merchants/${id}`,
        { rate_limit: { limit: 0, window_seconds: 1 } },
        'rate_limit.limit: must be at least 1',
      ],
      [
        `/_cabinet/merchants/${id}`,
        { rate_limit: { limit: 1, window_seconds: 86_401 } },
        'rate_limit.window_seconds: must be at most 86400',
      ],
      [
        `/_cabinet/merchants/${id}`,
        { rate_limit: { limit: 1, window_seconds: 0.5 } },
        'rate_limit.window_seconds: must be an integer',
      ],
      ['/_cabinet/merchants', { name: 'x'.repeat(257) }, 'name: must be at most 256 characters'],
      ['/_cabinet/merchants', { name: '' }, 'name: must not be empty'],
      ['/_simulator/clock/advance', { seconds: 10 * 365 * 86_400 + 1 }, 'seconds: must be at most 315360000'],
    ];
    for (const [path, body, message] of cases) {
      const r = await env.admin(path, { body, method: path.includes('merchants/') ? 'PATCH' : 'POST' });
      expectError(r, 400, 'bad_request');
      expect(r.body.error.message).toBe(message);
    }
  });

  it('never takes the clock past 9999-01-01: a timestamp must still render (RFC 3339 has four-digit years)', async () => {
    // 27,000 advances of the 10-year maximum used to reach year 275760, where every answer with a time was a 500.
    const { ManualClock } = await import('../../src/reference/domain/clock.js');
    const limit = Date.UTC(9999, 0, 1);
    env = setup({ clock: new ManualClock(limit - 10_000) });
    const r = await env.admin('/_simulator/clock/advance', { body: { seconds: 10.001 } });
    expectError(r, 400, 'bad_request');
    expect(r.body.error.message).toContain('9999-01-01T00:00:00.000Z');
    await expect(env.ref.control.advanceClock(10 * 365 * 86_400)).rejects.toMatchObject({
      status: 400,
    });
    expect((await env.ref.control.getClock()).now).toBe('9998-12-31T23:59:50.000Z');
    expect((await env.admin('/_simulator/clock/advance', { body: { seconds: 10 } })).body).toEqual({
      now: '9999-01-01T00:00:00.000Z',
    });
    expect((await env.call('/payments', { body: { amount: 1000 } })).status).toBe(201);
  });

  it('refuses to advance a real clock with 409 clock_not_manual', async () => {
    env = setup({ clock: 'real' });
    const { createReference } = await import('../../src/reference/service.js');
    const real = createReference();
    expect((await real.control.getClock()).mode).toBe('real');
    await expect(real.control.advanceClock(1)).rejects.toMatchObject({
      status: 409,
      code: 'clock_not_manual',
    });
    await real.close();
  });
});
