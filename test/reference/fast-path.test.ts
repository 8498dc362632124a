import { afterEach, describe, expect, it } from 'vitest';
import { expectError, setup } from './helpers.js';

// POST /payments and GET /payments/{id} skip hono's router (publicFastPath); every other form of those URLs still
// goes through hono. Both must answer alike.

let env: ReturnType<typeof setup>;
afterEach(() => env?.ref.close());

describe('the fast path of POST /payments and GET /payments/{id}', () => {
  it('answers a percent-encoded path (through hono) as the plain one (fast path)', async () => {
    env = setup();
    const { payment } = await env.createPayment();
    const plain = await env.call(`/payments/${payment.id}`);
    const encoded = await env.call(
      `/payments/%${payment.id.charCodeAt(0).toString(16)}${payment.id.slice(1)}`,
    );
    expect(plain.status).toBe(200);
    expect(encoded.status).toBe(200);
    expect(encoded.text).toBe(plain.text);
    const withQuery = await env.call(`/payments/${payment.id}?expand=x#frag`);
    expect(withQuery.text).toBe(plain.text);
  });

  it('leaves other paths and methods to hono: trailing slash, deeper path, HEAD, 405', async () => {
    env = setup();
    const { payment } = await env.createPayment();
    const slash = await env.call(`/payments/${payment.id}/`);
    expect(slash.status).toBe(404);
    expect((await env.call('/payments/', { body: { amount: 100 } })).status).not.toBe(201);
    const head = await env.ref.fetch(
      new Request(`http://ref.test/api/v1/public/payments/${payment.id}`, {
        method: 'HEAD',
        headers: { authorization: `Bearer ${env.ref.facts.api_key}` },
      }),
    );
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expectError(await env.call(`/payments/${payment.id}`, { method: 'PUT' }), 405, 'method_not_allowed');
    expectError(await env.call('/payments', { method: 'GET' }), 405, 'method_not_allowed');
  });

  it('keeps section 5 and the errors of the routes: 401, 404 for a bad id, 400 for a bad body, replay', async () => {
    env = setup();
    expectError(await env.call('/payments', { body: { amount: 100 }, key: null }), 401);
    expectError(await env.call('/payments/not-a-uuid'), 404, 'not_found');
    expectError(await env.call('/payments', { body: { amount: 0 } }), 400, 'bad_request');
    expectError(
      await env.call('/payments', { raw: '{', headers: { 'content-type': 'application/json' } }),
      400,
    );
    const headers = { 'idempotency-key': 'k-1' };
    const first = await env.call('/payments', { body: { amount: 100 }, headers });
    const again = await env.call('/payments', { body: { amount: 100 }, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.payment.id).toBe(first.body.payment.id);
    expect(again.headers.get('x-request-id')).toMatch(/^req_/);
  });
});
