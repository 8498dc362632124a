// Canned wire data shared by the benchmarks: a realistic payment (about 1.5 KB of JSON), a creation answer, a
// creation input and a 2 KB webhook envelope. Fixed ids so every run measures the same bytes.

export const PAYMENT_ID = '3f1c2a9e-7b4d-4c1e-9a2f-5d6e7f801234';
const MERCHANT_ID = 'b6a1f0c2-1d2e-4f3a-8b4c-5d6e7f8091a2';
const TERMINAL_ID = 'c7b2e1d3-2e3f-4a4b-9c5d-6e7f8091a2b3';
const SHOP_ID = 'd8c3f2e4-3f4a-4b5c-8d6e-7f8091a2b3c4';

/** A succeeded payment with one refund: every field of spec 2.1 present. */
export function payment(extra = {}) {
  return {
    id: PAYMENT_ID,
    merchant_id: MERCHANT_ID,
    terminal_id: TERMINAL_ID,
    terminal_name: 'Main terminal (online store)',
    order_id: 'order-2026-000184467',
    amount: 1250000,
    amount_refunded: 350000,
    amount_usdt: 137.42,
    currency: 'RUB',
    method: 'sbp',
    status: 'succeeded',
    rrn: '631512345678',
    bank_name: 'Sberbank',
    return_url: 'https://shop.example.com/orders/000184467/return',
    created_at: '2026-11-20T10:15:30.123Z',
    captured_at: '2026-11-20T10:16:02.456Z',
    finalized_at: '2026-11-20T10:16:02.789Z',
    expires_at: '2026-11-20T10:45:30.123Z',
    processing_until: '2026-11-20T10:25:30.123Z',
    metadata: { customer_id: 'cus_84467', cart: 'c-99812', channel: 'web', campaign: 'winter-2026' },
    customer_card_brand: null,
    customer_card_mask: null,
    customer_card_holder: null,
    customer_phone_mask: '+7 *** ***-12-34',
    customer_payer_bank: 'Tinkoff Bank',
    refunds: [
      {
        id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
        payment_id: PAYMENT_ID,
        merchant_id: MERCHANT_ID,
        amount: 250000,
        reason: 'Customer returned one item of the order',
        status: 'succeeded',
        created_at: '2026-11-20T12:00:00.000Z',
        completed_at: '2026-11-20T12:00:01.500Z',
      },
      {
        id: '0b1c2d3e-4f5a-4b6c-9d7e-8f9a0b1c2d3e',
        payment_id: PAYMENT_ID,
        merchant_id: MERCHANT_ID,
        amount: 100000,
        reason: null,
        status: 'pending',
        created_at: '2026-11-20T12:30:00.000Z',
        completed_at: null,
      },
    ],
    ...extra,
  };
}

export const PAYMENT_JSON = JSON.stringify(payment());

/** The body of `POST /payments`: about 200 bytes, as the reference load test sends it. */
export const CREATE_INPUT = {
  amount: 1250000,
  currency: 'RUB',
  method: 'sbp',
  order_id: 'order-2026-000184467',
  description: 'Order 000184467: 3 items',
  return_url: 'https://shop.example.com/orders/000184467/return',
  metadata: { customer_id: 'cus_84467' },
};
export const CREATE_INPUT_JSON = JSON.stringify(CREATE_INPUT);

export const CREATE_RESPONSE_JSON = JSON.stringify({
  payment: payment({
    status: 'pending',
    amount_refunded: 0,
    refunds: [],
    rrn: null,
    captured_at: null,
    finalized_at: null,
  }),
  payment_url: `https://pay.example.com/pay/${PAYMENT_ID}`,
  mode: 'test',
  simulator: 'succeeded',
});

/** A `payment.succeeded` webhook envelope padded (through metadata) to exactly `size` bytes of UTF-8 JSON. */
export function webhookBody(size = 2048) {
  const env = {
    id: 'evt_5b0c1d2e3f4a4b5c8d6e7f8091a2b3c4',
    event: 'payment.succeeded',
    created_at: '2026-11-20T10:16:02.789Z',
    data: payment({ shop_id: SHOP_ID }),
  };
  const base = JSON.stringify(env).length;
  env.data.metadata.note = '';
  const pad = size - base - ',"note":""'.length;
  if (pad < 0) throw new Error(`webhook body over ${size} bytes already`);
  env.data.metadata.note = 'x'.repeat(pad);
  const json = JSON.stringify(env);
  if (Buffer.byteLength(json) !== size) throw new Error('padding miscounted');
  return json;
}
