import { Buffer } from 'node:buffer';
import { afterEach, describe, expect, it } from 'vitest';
import { WireResponse } from '../../src/reference/http/wire-response.js';
import {
  createReference,
  type Reference,
  type RunningReference,
  startReference,
} from '../../src/reference/index.js';

const running: RunningReference[] = [];
const refs: Reference[] = [];
afterEach(async () => {
  await Promise.all([...running.splice(0), ...refs.splice(0)].map((r) => r.close()));
});

const CREATE = { amount: 150_000, order_id: 'Заказ-№1 ✓', description: 'Оплата заказа' };

describe('WireResponse', () => {
  it('stands in for a Response: status, headers, body readers, instanceof', async () => {
    const res = new WireResponse(201, '{"a":"ü"}', { 'content-type': 'application/json' });
    res.setHeader('x-request-id', 'req_1');
    expect(res).toBeInstanceOf(Response);
    expect(res.ok).toBe(true);
    expect(res.statusText).toBe('');
    expect(res.headers.get('x-request-id')).toBe('req_1');
    // A header set after `headers` was handed out goes into that Headers, and is what gets written.
    res.setHeader('x-late', '1');
    expect(res.headers.get('x-late')).toBe('1');
    expect(res.outgoingHeaders()).toMatchObject({ 'x-late': '1', 'x-request-id': 'req_1' });
    const asResponse = res as unknown as Response;
    expect(await asResponse.json()).toEqual({ a: 'ü' });
    expect(asResponse.bodyUsed).toBe(true);
    // Once a real Response exists the adapter must not write the text again.
    expect(res.outgoingHeaders()).toBeUndefined();
    expect(res.toResponse()).toBe(res.toResponse());
  });

  it('is never what Reference.fetch hands out: callers get a native Response', async () => {
    const ref = createReference({ clock: 'manual' });
    refs.push(ref);
    const res = await ref.fetch(
      new Request('http://ref.test/api/v1/public/payments', {
        method: 'POST',
        headers: { authorization: `Bearer ${ref.facts.api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify(CREATE),
      }),
    );
    expect(res).not.toBeInstanceOf(WireResponse);
    expect(Object.getPrototypeOf(res)).toBe(Response.prototype);
    expect(res.status).toBe(201);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(((await res.json()) as { payment: { order_id: string } }).payment.order_id).toBe(CREATE.order_id);
  });
});

describe('startReference writes the reference’s own answers directly', () => {
  it('sends the exact bytes with a byte-accurate Content-Length and the standard headers', async () => {
    const ref = await startReference({ port: 0 });
    running.push(ref);
    const auth = { authorization: `Bearer ${ref.api_key}` };
    const created = await fetch(`${ref.base_url}/api/v1/public/payments`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify(CREATE),
    });
    expect(created.status).toBe(201);
    const createdText = await created.text();
    expect(Number(created.headers.get('content-length'))).toBe(Buffer.byteLength(createdText));
    const id = JSON.parse(createdText).payment.id as string;

    const res = await fetch(`${ref.base_url}/api/v1/public/payments/${id}`, { headers: auth });
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text).toContain(CREATE.order_id);
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(text));
    expect(res.headers.get('transfer-encoding')).toBeNull();
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9a-f-]{36}$/);
    // The same answer in-process, apart from the request id.
    const inProcess = await ref.reference.fetch(
      new Request(`${ref.base_url}/api/v1/public/payments/${id}`, { headers: auth }),
    );
    expect(JSON.parse(text)).toEqual(await inProcess.json());
  });

  it('answers HEAD with the GET headers and no body, and errors with their extra headers', async () => {
    const ref = await startReference({ port: 0 });
    running.push(ref);
    const auth = { authorization: `Bearer ${ref.api_key}` };
    const head = await fetch(`${ref.base_url}/api/v1/public/banks/sbp`, { method: 'HEAD', headers: auth });
    expect(head.status).toBe(200);
    expect(head.headers.get('x-request-id')).toMatch(/^req_/);
    expect(await head.text()).toBe('');

    const wrong = await fetch(`${ref.base_url}/api/v1/public/payments`, { method: 'PUT', headers: auth });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
    const body = await wrong.text();
    expect(Number(wrong.headers.get('content-length'))).toBe(Buffer.byteLength(body));
    expect(JSON.parse(body).error.code).toBe('method_not_allowed');
  });
});
