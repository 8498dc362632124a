import { afterEach, describe, expect, it } from 'vitest';
import { expectError, PUBLIC, setup } from './helpers.js';

let env: ReturnType<typeof setup>;
afterEach(() => env?.ref.close());

describe('routing', () => {
  it('is 404 with the error body for unknown paths, everywhere', async () => {
    env = setup();
    expectError(await env.call('/nothing'), 404, 'not_found');
    expectError(await env.call('/_nothing'), 404, 'not_found');
    expectError(await env.call('/api/v2/public/payments'), 404, 'not_found');
    expectError(await env.admin('/_cabinet/nothing'), 404, 'not_found');
  });

  it.each([
    ['PUT', '/payments'],
    ['GET', '/payments'],
    ['DELETE', '/payments/4a1f1c55-9b0b-4f43-9b7e-5d0f1f8f0a11'],
    ['GET', '/payments/4a1f1c55-9b0b-4f43-9b7e-5d0f1f8f0a11/cancel'],
    ['POST', '/banks/sbp'],
    ['PATCH', '/payouts'],
    ['OPTIONS', '/payments'],
  ])('is 405 method_not_allowed for %s %s, with Allow', async (method, path) => {
    env = setup();
    const r = await env.call(path, { method });
    expectError(r, 405, 'method_not_allowed');
    expect(r.headers.get('allow')).toBeTruthy();
  });

  it('answers HEAD like GET without a body', async () => {
    env = setup();
    const r = await env.call('/banks/sbp', { method: 'HEAD' });
    expect(r.status).toBe(200);
    expect(r.text).toBe('');
  });
});

describe('bodies a client can send', () => {
  it.each([
    ['malformed JSON', '{"amount": 100', 'not valid JSON'],
    ['a trailing comma', '{"amount": 100,}', 'not valid JSON'],
    ['1e309', '{"amount": 1e309}', 'amount'],
    ['9007199254740993', '{"amount": 9007199254740993}', 'amount'],
    ['a negative zero', '{"amount": -0}', 'amount'],
    ['a huge string', JSON.stringify({ amount: 100, description: 'x'.repeat(30_000) }), 'description'],
    // Larger than any valid body of payments.create (body-caps.ts): refused by its length.
    [
      'a body past the route cap',
      JSON.stringify({ amount: 100, description: 'x'.repeat(500_000) }),
      'Payload too large',
    ],
    ['deep nesting', `{"amount":100,"metadata":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`, 'metadata'],
    ['deep arrays', `${'['.repeat(100_000)}${']'.repeat(100_000)}`, ''],
    ['a huge unknown key', JSON.stringify({ amount: 100, ['k'.repeat(100_000)]: 1 }), 'unknown field'],
    ['just null', 'null', ''],
    ['a number', '42', ''],
  ])('answers %s with 400 naming the problem', async (_name, raw, needle) => {
    env = setup();
    const r = await env.call('/payments', { raw });
    expectError(r, 400, 'bad_request');
    if (needle) expect(r.body.error.message).toContain(needle);
    expect(r.body.error.message.length).toBeLessThan(2000);
  });

  it('refuses bytes that are not UTF-8', async () => {
    env = setup();
    const r = await env.call('/payments', { raw: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]) });
    expectError(r, 400, 'bad_request');
    expect(r.body.error.message).toContain('UTF-8');
  });

  it('keeps unicode intact', async () => {
    env = setup();
    const c = await env.createPayment({ amount: 100, description: 'Чай 🍵', metadata: { ключ: 'значение' } });
    expect(c.payment.metadata).toEqual({ ключ: 'значение' });
  });

  // A body over 1 MiB and a body that is not JSON: test/reference/refusals.test.ts (400 with their own codes).

  it('accepts application/json with charset=utf-8 and a missing Content-Type', async () => {
    env = setup();
    const a = await env.call('/payments', {
      raw: '{"amount":100}',
      headers: { 'content-type': 'application/json; charset=UTF-8' },
    });
    expect(a.status).toBe(201);
    const res = await env.ref.fetch(
      new Request(`${PUBLIC}/payments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${env.ref.api_key}` },
        body: new TextEncoder().encode('{"amount":100}'),
      }),
    );
    expect(res.status).toBe(201);
  });
});

describe('wire rules (spec 1)', () => {
  it('uses UUIDv4 ids, RFC 3339 UTC times and integer minor units', async () => {
    env = setup();
    const c = await env.createPayment({ amount: 100 });
    expect(c.payment.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(c.payment.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Number.isInteger(c.payment.amount)).toBe(true);
  });

  it('answers JSON with a charset and never caches', async () => {
    env = setup();
    const r = await env.call('/banks/sbp');
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(r.headers.get('cache-control')).toBe('no-store');
  });
});

describe('GET /events', () => {
  it('opens a text/event-stream that starts with ": connected"', async () => {
    env = setup();
    const ac = new AbortController();
    const res = await env.ref.fetch(
      new Request(`${PUBLIC}/events`, {
        headers: { authorization: `Bearer ${env.ref.api_key}` },
        signal: ac.signal,
      }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain(': connected');
    await env.createPayment({ amount: 321 });
    let text = '';
    while (!text.includes('payment.created')) text += new TextDecoder().decode((await reader.read()).value);
    expect(text).toContain('event: payment.created');
    await reader.cancel();
    ac.abort();
  });

  it('answers HEAD with the stream headers and opens no stream', async () => {
    env = setup();
    const r = await env.call('/events', { method: 'HEAD' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/event-stream');
    expect(r.text).toBe('');
  });

  it('needs a key like every public route', async () => {
    env = setup();
    expectError(await env.call('/events', { key: null }), 401, 'unauthorized');
  });
});

describe('secrets in error messages', () => {
  it('redacts a key pasted into a path or a field name', async () => {
    env = setup();
    const key = env.ref.api_key;
    const a = await env.call(`/payments/${key}`);
    expectError(a, 404, 'not_found');
    expect(a.text).not.toContain(key);
    const b = await env.call('/payments', { body: { amount: 100, [env.ref.signing_secret]: 1 } });
    expectError(b, 400, 'bad_request');
    expect(b.text).not.toContain(env.ref.signing_secret);
    expect(b.body.error.message).toContain('thm_***');
  });

  it('redacts a secret pasted JSON-escaped (\\u005f) into a path id: quoting must not escape it once more', async () => {
    env = setup();
    const secret = env.ref.signing_secret;
    const escaped = secret.replace('_', '\\u005f');
    const r = await env.call(`/payments/${encodeURIComponent(escaped)}`);
    expectError(r, 404, 'not_found');
    const part = secret.slice(4, 20);
    expect(r.text).not.toContain(part);
    expect(r.body.error.message).not.toContain(part);
    expect(r.body.error.message).toMatch(/No payment with id .*redacted/);
  });
});

describe("the reference's own redaction", () => {
  it("masks its startup credentials without their prefix in error bodies and log lines, and no other reference's", async () => {
    const lines: string[] = [];
    env = setup({ logger: (l) => lines.push(l) });
    const other = setup();
    try {
      const mine = env.ref.api_key.slice('sk_test_xxxxxx_'.length);
      const theirs = other.ref.api_key.slice('sk_test_xxxxxx_'.length);
      const a = await env.call(`/payments/${mine}`);
      expectError(a, 404, 'not_found');
      expect(a.text).not.toContain(mine);
      expect(a.text).not.toContain(mine.slice(0, 12));
      const b = await env.call('/payments', { body: { amount: 100, [env.ref.signing_secret.slice(4)]: 1 } });
      expectError(b, 400, 'bad_request');
      expect(b.text).not.toContain(env.ref.signing_secret.slice(4));
      for (const l of lines) expect(l).not.toContain(mine);
      // An instance per reference: the other one's key is nothing to this one (a registry would mask it).
      const c = await env.call(`/payments/${theirs}`);
      expectError(c, 404, 'not_found');
      expect(c.text).toContain(theirs);
    } finally {
      await other.ref.close();
    }
  });
});

describe('the request log', () => {
  it('writes one line per request and never a secret', async () => {
    const lines: string[] = [];
    env = setup({ logger: (l) => lines.push(l) });
    await env.call('/payments', { body: { amount: 100 } });
    await env.call(`/payments/${env.ref.api_key}`);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^POST \/api\/v1\/public\/payments 201 \d+ms$/);
    for (const l of lines) {
      expect(l).not.toContain(env.ref.api_key);
      expect(l).not.toContain(env.ref.admin_token);
    }
  });
});
