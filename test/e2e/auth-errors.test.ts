import util from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  AmlBlockedError,
  AuthenticationError,
  ForbiddenPurposeError,
  IpNotAllowedError,
  LiveNotEnabledError,
  PspClient,
  PspError,
  RateLimitError,
  SignatureError,
} from '../../src/index.js';
import { failure, merchant, PHONE, referenceForFile } from './setup.js';

const file = referenceForFile();

describe('authentication (spec 5) and the errors of spec 7, over HTTP', () => {
  it('401 for an unknown key and for a revoked key', async () => {
    const { m } = await merchant(file.ref);
    const unknown = new PspClient({ apiKey: 'sk_test_zzzzzz_doesnotexist', baseUrl: file.ref.base_url });
    const e1 = await failure(unknown.banks.list());
    expect(e1).toBeInstanceOf(AuthenticationError);
    expect((e1 as AuthenticationError).status).toBe(401);
    const { id, api_key } = await file.ref.control.createApiKey(m.terminal_id, { mode: 'test' });
    const c = new PspClient({ apiKey: api_key, baseUrl: file.ref.base_url });
    expect((await c.banks.list()).items).toHaveLength(30);
    await file.ref.control.revokeApiKey(id);
    const e2 = await failure(c.banks.list({ refresh: true }));
    expect(e2).toBeInstanceOf(AuthenticationError);
    expect((e2 as AuthenticationError).attempts).toBe(1);
  });

  it('403 live_not_enabled for a live key until live mode is on; then mode is live', async () => {
    const { m } = await merchant(file.ref);
    const { api_key } = await file.ref.control.createApiKey(m.terminal_id, { mode: 'live' });
    const live = new PspClient({ apiKey: api_key, baseUrl: file.ref.base_url, strict: true });
    expect(live.mode).toBe('live');
    const e = await failure(live.payments.create({ amount: 1000 }));
    expect(e).toBeInstanceOf(LiveNotEnabledError);
    expect((e as LiveNotEnabledError).status).toBe(403);
    await file.ref.control.updateMerchant(m.merchant_id, { live_enabled: true });
    const r = await live.payments.create({ amount: 1000 });
    expect(r.mode).toBe('live');
  });

  it('403 ip_not_allowed outside the allow-list; 127.0.0.1 listed passes', async () => {
    const { m, client } = await merchant(file.ref);
    await file.ref.control.updateMerchant(m.merchant_id, { ip_allow_list: ['10.0.0.0/8', '2001:db8::/32'] });
    const e = await failure(client.banks.list());
    expect(e).toBeInstanceOf(IpNotAllowedError);
    expect((e as IpNotAllowedError).code).toBe('ip_not_allowed');
    await file.ref.control.updateMerchant(m.merchant_id, { ip_allow_list: ['10.0.0.0/8', '127.0.0.1/32'] });
    expect((await client.banks.list()).items.length).toBe(30);
  });

  it('403 aml_blocked and forbidden_purpose stop money movement', async () => {
    const { m, client } = await merchant(file.ref);
    await file.ref.control.updateMerchant(m.merchant_id, { block: 'aml_blocked' });
    expect(await failure(client.payments.create({ amount: 1000 }))).toBeInstanceOf(AmlBlockedError);
    expect(
      await failure(client.payouts.create({ amount: 1000, phone: PHONE, bank_id: '100000000111' })),
    ).toBeInstanceOf(AmlBlockedError);
    await file.ref.control.updateMerchant(m.merchant_id, { block: 'forbidden_purpose' });
    const e = await failure(client.payments.create({ amount: 1000 }));
    expect(e).toBeInstanceOf(ForbiddenPurposeError);
    expect((e as ForbiddenPurposeError).status).toBe(403);
    await file.ref.control.updateMerchant(m.merchant_id, { block: null });
    expect((await client.payments.create({ amount: 1000 })).payment.status).toBe('pending');
  });

  it('require_signature: unsigned is signature_required, a wrong secret is invalid_signature, the right one passes everywhere', async () => {
    const { m, client: unsigned } = await merchant(file.ref);
    await file.ref.control.updateTerminal(m.terminal_id, { require_signature: true });
    const e1 = await failure(unsigned.payments.create({ amount: 1000 }));
    expect(e1).toBeInstanceOf(SignatureError);
    expect((e1 as SignatureError).code).toBe('signature_required');
    expect((e1 as SignatureError).status).toBe(400);
    const wrong = new PspClient({
      apiKey: m.api_key,
      baseUrl: file.ref.base_url,
      signingSecret: 'thm_wrong',
    });
    const e2 = await failure(wrong.payments.get('6f9619ff-8b86-4d11-b42d-00c04fc964ff'));
    expect(e2).toBeInstanceOf(SignatureError);
    expect((e2 as SignatureError).code).toBe('invalid_signature');
    expect((e2 as SignatureError).status).toBe(400);
    const signed = new PspClient({
      apiKey: m.api_key,
      baseUrl: file.ref.base_url,
      signingSecret: m.signing_secret,
      strict: true,
    });
    const { payment } = await signed.payments.create({ amount: 1000, description: 'подпись ✓' });
    expect((await signed.payments.get(payment.id)).id).toBe(payment.id);
    await file.ref.control.succeedPayment(payment.id);
    expect((await signed.payments.refund(payment.id, { amount: 10 })).amount).toBe(10);
    expect((await signed.payments.refund(payment.id)).amount).toBe(990);
    const other = (await signed.payments.create({ amount: 1000 })).payment;
    expect(await signed.payments.cancel(other.id)).toEqual({ status: 'cancelled' });
    const { payout } = await signed.payouts.create({ amount: 500, phone: PHONE, bank_id: '100000000111' });
    expect((await signed.payouts.get(payout.id)).id).toBe(payout.id);
    expect((await signed.banks.list()).items).toHaveLength(30);
  });

  it('429: fails at once with retryAfter when the wait outlasts the timeout', async () => {
    // A client that waited (its 60 s timeout, or the hour the 429 asks) would outlast the test's 30 s timeout.
    const { m, client } = await merchant(file.ref, { timeout: 60_000 });
    await file.ref.control.updateMerchant(m.merchant_id, { rate_limit: { limit: 1, window_seconds: 3600 } });
    await client.banks.list();
    const e = await failure(client.payments.create({ amount: 1000 }));
    expect(e).toBeInstanceOf(RateLimitError);
    expect((e as RateLimitError).retryAfter).toBeGreaterThan(60);
    expect((e as RateLimitError).retryAfter).toBeLessThanOrEqual(3600);
    expect((e as RateLimitError).attempts).toBe(1);
    expect((e as RateLimitError).idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('429: waits out Retry-After (the service clock moves meanwhile) and succeeds with the same key', async () => {
    const seenKeys: string[] = [];
    const { m, client } = await merchant(file.ref, {
      maxRetryDelay: 10,
      fetch: async (input, init) => {
        const req = input as Request;
        if (req.method === 'POST') seenKeys.push(req.headers.get('idempotency-key') ?? '');
        const res = await fetch(input, init);
        // The client sleeps (clamped to 10 ms here); on the service's manual clock that sleep is the full wait.
        if (res.status === 429) await file.ref.control.advanceClock(Number(res.headers.get('retry-after')));
        return res;
      },
    });
    await file.ref.control.updateMerchant(m.merchant_id, { rate_limit: { limit: 1, window_seconds: 2 } });
    await client.banks.list();
    const r = await client.payments.create({ amount: 1000 }).withResponse();
    expect(r.attempts).toBe(2);
    expect(r.response.status).toBe(201);
    expect(seenKeys).toEqual([r.idempotencyKey, r.idempotencyKey]);
  });

  it('no error from the reference carries the key or the signing secret', async () => {
    const { m } = await merchant(file.ref);
    await file.ref.control.updateTerminal(m.terminal_id, { require_signature: true });
    await file.ref.control.updateMerchant(m.merchant_id, { ip_allow_list: ['10.0.0.0/8'] });
    const c = new PspClient({
      apiKey: m.api_key,
      baseUrl: file.ref.base_url,
      signingSecret: 'thm_notTheRightOne',
    });
    const errors = [await failure(c.banks.list()), await failure(c.payments.create({ amount: 1 }))];
    await file.ref.control.updateMerchant(m.merchant_id, { ip_allow_list: [] });
    errors.push(await failure(c.banks.list()));
    for (const e of errors) {
      expect(e).toBeInstanceOf(PspError);
      const text = `${String(e)} ${(e as Error).stack} ${JSON.stringify(e)} ${util.inspect(e, { depth: null })}`;
      for (const s of [m.api_key, m.api_key.split('_')[3] ?? 'x', m.signing_secret, 'thm_notTheRightOne']) {
        expect(text).not.toContain(s);
      }
    }
  });
});
