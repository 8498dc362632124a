import { PspClient } from '../../src/index.js';
import type { ClientOptions } from '../../src/client/options.js';

export const API_KEY = 'sk_test_ab12cd_S3cretPartOfTheKey0123456789';
export const LIVE_KEY = 'sk_live_zz99yy_AnotherSecretPart987654321';
export const SIGNING_SECRET = 'thm_SigningSecretValue_abcdefghij0123';
export const BASE_URL = 'http://psp.test';
export const PAYMENT_ID = '6f9619ff-8b86-4d11-b42d-00c04fc964ff';
export const PAYOUT_ID = '1b4e28ba-2fa1-41d2-883f-0016d3cca427';
const MERCHANT = '9c5b94b1-35ad-49bb-b118-8e8fc24abf80';
const TERMINAL = '3d813cbb-47fb-42ba-91df-831e1593ac29';

/** One request as the stub saw it. */
export interface Seen {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  bytes: Uint8Array;
}

export type Handler = (req: Request, n: number) => Response | Promise<Response>;

/** A fetch that records each request (headers and exact body bytes) and answers with `handler`. */
export function stubFetch(handler: Handler) {
  const seen: Seen[] = [];
  const fetchFn = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const req = input instanceof Request ? input : new Request(input, init);
    const bytes = new Uint8Array(await req.clone().arrayBuffer());
    seen.push({
      method: req.method,
      url: req.url,
      headers: Object.fromEntries(req.headers),
      body: new TextDecoder().decode(bytes),
      bytes,
    });
    return handler(req, seen.length);
  };
  return { fetch: fetchFn as typeof fetch, seen };
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

export function apiError(status: number, code: string, message = `${code} happened`, headers = {}): Response {
  return json({ error: { code, message } }, status, headers);
}

export function client(fetchFn: typeof fetch, options: ClientOptions = {}): PspClient {
  return new PspClient({ apiKey: API_KEY, baseUrl: BASE_URL, fetch: fetchFn, ...options });
}

/** A payment with every field of spec 2.1, valid in strict mode. */
export function payment(overrides: Record<string, unknown> = {}) {
  return {
    id: PAYMENT_ID,
    merchant_id: MERCHANT,
    terminal_id: TERMINAL,
    terminal_name: 'Main terminal',
    order_id: 'A-1042',
    amount: 249_900,
    amount_refunded: 0,
    amount_usdt: null,
    currency: 'RUB',
    method: 'any',
    status: 'pending',
    rrn: null,
    bank_name: null,
    return_url: null,
    created_at: '2026-05-06T10:00:00.000Z',
    captured_at: null,
    finalized_at: null,
    expires_at: '2026-05-06T10:30:00.000Z',
    processing_until: null,
    metadata: {},
    customer_card_brand: null,
    customer_card_mask: null,
    customer_card_holder: null,
    customer_phone_mask: null,
    customer_payer_bank: null,
    refunds: [],
    ...overrides,
  };
}

export function createPaymentResponse(overrides: Record<string, unknown> = {}) {
  return { payment: payment(), payment_url: `${BASE_URL}/pay/${PAYMENT_ID}`, mode: 'test', ...overrides };
}

export function refund(overrides: Record<string, unknown> = {}) {
  return {
    id: '0f8fad5b-d9cb-469f-a165-70867728950e',
    payment_id: PAYMENT_ID,
    merchant_id: MERCHANT,
    amount: 500,
    reason: null,
    status: 'succeeded',
    created_at: '2026-05-06T10:05:00.000Z',
    completed_at: '2026-05-06T10:05:00.000Z',
    ...overrides,
  };
}

export function payout(overrides: Record<string, unknown> = {}) {
  return {
    id: PAYOUT_ID,
    merchant_id: MERCHANT,
    terminal_id: TERMINAL,
    amount: 50_000,
    currency: 'RUB',
    method: 'payouts_sbp',
    status: 'pending',
    fail_reason: null,
    recipient: { phone: '+79001234567', bank_id: '100000000111', full_name: null },
    created_at: '2026-05-06T10:00:00.000Z',
    completed_at: null,
    ...overrides,
  };
}

export const BANKS = {
  items: [
    { member_id: '100000000111', name: 'Сбербанк', name_en: 'Sberbank' },
    { member_id: '100000000004', name: 'Т-Банк', name_en: 'T-Bank' },
  ],
};

/** Rejects like undici does when the connection fails. */
export function connectionRefused(): never {
  throw new TypeError('fetch failed', {
    cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4999'), { code: 'ECONNREFUSED' }),
  });
}

/** The settled value or the error of a call, for assertions on either. */
export async function outcome<T>(
  p: PromiseLike<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await p };
  } catch (error) {
    return { ok: false, error };
  }
}

export async function failure(p: PromiseLike<unknown>): Promise<unknown> {
  const r = await outcome(p);
  if (r.ok) throw new Error(`expected a failure, got ${JSON.stringify(r.value)}`);
  return r.error;
}

export const PHONE = '+79001234567';
