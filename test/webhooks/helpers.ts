import { createHmac } from 'node:crypto';

// Vectors are computed here with node:crypto directly, never with the code under test.
export const SECRET = 'whs_test_9fK2pQ7vLm3XzR8tB1nC4dE6';
export const OLD_SECRET = 'whs_test_old_5hJ8kL2mN4pQ6rS8';
export const NOW_MS = 1_763_700_000_000;
export const T = Math.floor(NOW_MS / 1000);

export const hmacHex = (key: string, msg: string | Uint8Array) =>
  createHmac('sha256', key).update(msg).digest('hex');

export const payment = {
  id: '7d1f0d3c-5a4e-4b7e-9c1a-2f3e4d5c6b7a',
  merchant_id: '0b6f9f2e-1c3d-4e5f-8a9b-0c1d2e3f4a5b',
  terminal_id: '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
  shop_id: '2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a',
  order_id: 'order-42',
  amount: 150000,
  amount_refunded: 0,
  currency: 'RUB',
  method: 'sbp',
  status: 'succeeded',
  description: 'Заказ №42 — «тест»',
};

export const envelope = (event = 'payment.succeeded', data: object = payment) => ({
  id: 'evt_01JD3Z8K9QW',
  event,
  created_at: '2025-11-21T04:40:00Z',
  data,
});

export const BODY = JSON.stringify(envelope());

export function v2Header(body: string | Uint8Array, t = T, secret = SECRET): string {
  const prefixed = typeof body === 'string' ? `${t}.${body}` : Buffer.concat([Buffer.from(`${t}.`), body]);
  const signed = hmacHex(secret, prefixed);
  return `t=${t},v1=${signed},v2=${signed}`;
}

export function v2Headers(body: string | Uint8Array, t = T, secret = SECRET): Record<string, string> {
  return { 'x-psp-signature': v2Header(body, t, secret), 'x-psp-timestamp': String(t) };
}

export const v1Headers = (body: string | Uint8Array, secret = SECRET) => ({
  'x-psp-signature': `sha256=${hmacHex(secret, body)}`,
});
