import { expect } from 'vitest';
import { responseSchemas } from '../../src/schemas/resources.js';
import { hmacSha256Hex } from '../../src/internal/hmac.js';
import { ManualClock } from '../../src/reference/domain/clock.js';
import { createReference, type Reference, type ReferenceOptions } from '../../src/reference/service.js';
import { checkedFetch } from '../openapi/answer-check.js';

export const BASE = 'http://ref.test';
export const PUBLIC = `${BASE}/api/v1/public`;
export const BANK_ID = '100000000111';

export interface Call {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface CallOptions {
  method?: string;
  body?: unknown;
  /** A raw body string, sent as is. */
  raw?: string | Uint8Array;
  key?: string | null;
  headers?: Record<string, string>;
  remoteAddress?: string;
  sign?: string;
}

/** A reference on a manual clock with helpers to call it without sockets. */
export function setup(options: ReferenceOptions = {}) {
  const clock = new ManualClock(Date.parse('2026-05-06T10:00:00.000Z'));
  const ref: Reference = createReference({ clock, ...options });
  // Every answer of the tests built on this helper is checked against openapi.json (status listed, body valid),
  // except while fault rules are in force: their answers are the test's, not the service's.
  const checked = checkedFetch(ref.fetch.bind(ref));
  const fetch: typeof checked = async (request, env) =>
    (await ref.control.listFaults()).items.length > 0 ? ref.fetch(request, env) : checked(request, env);
  const call = async (path: string, o: CallOptions = {}): Promise<Call> => {
    const headers: Record<string, string> = { ...o.headers };
    const key = o.key === undefined ? ref.api_key : o.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let body: string | Uint8Array | undefined;
    if (o.raw !== undefined) body = o.raw;
    else if (o.body !== undefined) body = JSON.stringify(o.body);
    if (body !== undefined && !('content-type' in headers)) headers['content-type'] = 'application/json';
    if (o.sign !== undefined) headers['x-psp-signature'] = `sha256=${hmacSha256Hex(o.sign, body ?? '')}`;
    const url = path.startsWith('http')
      ? path
      : path.startsWith('/_') || path.startsWith('/pay/')
        ? BASE + path
        : PUBLIC + path;
    const res = await fetch(
      new Request(url, { method: o.method ?? (body === undefined ? 'GET' : 'POST'), headers, body }),
      o.remoteAddress === undefined ? undefined : { remoteAddress: o.remoteAddress },
    );
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  };
  const admin = (path: string, o: CallOptions = {}) => call(path, { key: ref.admin_token, ...o });
  const createPayment = async (input: Record<string, unknown> = { amount: 1000 }, o: CallOptions = {}) => {
    const r = await call('/payments', { body: input, ...o });
    expect(r.status, r.text).toBe(201);
    return r.body as { payment: any; payment_url: string; simulator?: string; [k: string]: unknown };
  };
  const pay = async (id: string, action: 'pay' | 'decline' = 'pay') => {
    const res = await ref.fetch(new Request(`${BASE}/pay/${id}/${action}`, { method: 'POST' }));
    return res.status;
  };
  const advance = (seconds: number) => clock.advance(seconds * 1000);
  return { ref, clock, call, admin, createPayment, pay, advance };
}

/** Asserts the spec's error body (2.9) and the code. */
export function expectError(r: Call, status: number, code?: string): void {
  expect(r.status, r.text).toBe(status);
  expect(responseSchemas(true).ErrorBody.safeParse(r.body).success, r.text).toBe(true);
  expect(typeof r.body.error.message).toBe('string');
  expect(r.body.error.message.length).toBeGreaterThan(0);
  if (code) expect(r.body.error.code).toBe(code);
}

/** Asserts a body against the strict wire schema of the spec. */
export function expectWire(schema: keyof ReturnType<typeof responseSchemas>, body: unknown): void {
  const r = responseSchemas(true)[schema].safeParse(body);
  expect(r.success, JSON.stringify(r.error?.issues ?? [])).toBe(true);
}

export const payoutInput = (extra: Record<string, unknown> = {}) => ({
  amount: 5000,
  phone: '+79991234567',
  bank_id: BANK_ID,
  ...extra,
});
