import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import { ManualClock } from '../../../src/reference/domain/clock.js';
import { type DomainEvent, EventBus } from '../../../src/reference/domain/events.js';
import { createWebhookService, type WebhookService } from '../../../src/reference/webhooks/index.js';
import type { Payment, Payout, Refund } from '../../../src/schemas/resources.js';

export const T0 = Date.UTC(2026, 4, 6, 12, 0, 0);
export const MERCHANT = '6f1c0a7e-1111-4a4a-8a8a-000000000001';
export const SHOP_A = '6f1c0a7e-2222-4a4a-8a8a-00000000000a';
export const SHOP_B = '6f1c0a7e-2222-4a4a-8a8a-00000000000b';

let n = 0;
const uuid = () => crypto.randomUUID();

export function payment(overrides: Partial<Payment> = {}): Payment {
  n++;
  return {
    id: uuid(),
    merchant_id: MERCHANT,
    terminal_id: uuid(),
    terminal_name: 'Main',
    order_id: `order-${n}`,
    amount: 10_000,
    amount_refunded: 0,
    amount_usdt: null,
    currency: 'RUB',
    method: 'any',
    status: 'succeeded',
    rrn: null,
    bank_name: null,
    return_url: null,
    created_at: new Date(T0).toISOString(),
    captured_at: null,
    finalized_at: null,
    expires_at: null,
    processing_until: null,
    metadata: { cart: 'x' },
    customer_card_brand: null,
    customer_card_mask: null,
    customer_card_holder: null,
    customer_phone_mask: null,
    customer_payer_bank: null,
    refunds: [],
    ...overrides,
  };
}

export function payout(overrides: Partial<Payout> = {}): Payout {
  return {
    id: uuid(),
    merchant_id: MERCHANT,
    terminal_id: uuid(),
    amount: 5_000,
    currency: 'RUB',
    method: 'payouts_sbp',
    status: 'succeeded',
    fail_reason: null,
    recipient: { phone: '+79001234567', bank_id: '100000000111', full_name: null },
    created_at: new Date(T0).toISOString(),
    completed_at: new Date(T0).toISOString(),
    ...overrides,
  };
}

export function refund(p: Payment, amount: number): Refund {
  return {
    id: uuid(),
    payment_id: p.id,
    merchant_id: p.merchant_id,
    amount,
    reason: null,
    status: 'succeeded',
    created_at: new Date(T0).toISOString(),
    completed_at: new Date(T0).toISOString(),
  };
}

interface EventOpts {
  at?: number;
  shopId?: string;
  merchantId?: string;
  webhookUrl?: string | null;
}

/** When and whose an event is: T0, MERCHANT and SHOP_A unless `o` says otherwise. */
const origin = (o: EventOpts) => ({
  at: o.at ?? T0,
  merchantId: o.merchantId ?? MERCHANT,
  shopId: o.shopId ?? SHOP_A,
});

export function paymentChanged(p: Payment, from: string, to: string, o: EventOpts = {}): DomainEvent {
  return {
    type: 'payment.status_changed',
    ...origin(o),
    payment: { ...p, status: to as Payment['status'] },
    from,
    to,
    webhookUrl: o.webhookUrl ?? null,
  };
}

export function succeeded(o: EventOpts = {}, p: Payment = payment()): DomainEvent {
  return paymentChanged(p, 'pending', 'succeeded', o);
}

export function payoutChanged(p: Payout, from: string, to: string, o: EventOpts = {}): DomainEvent {
  return {
    type: 'payout.status_changed',
    ...origin(o),
    payout: { ...p, status: to as Payout['status'] },
    from,
    to,
  };
}

/** One event of each kind the stream sends, a tick apart from T0; `orderId` is the first payment's order. */
export function oneOfEachKind(orderId: string): DomainEvent[] {
  const p = payment({ status: 'pending', order_id: orderId });
  const po = payout({ status: 'pending' });
  const paid = payment();
  return [
    { type: 'payment.created', ...origin({}), payment: p, webhookUrl: null },
    paymentChanged(p, 'pending', 'processing', { at: T0 + 1 }),
    paymentChanged(p, 'processing', 'succeeded', { at: T0 + 2 }),
    { type: 'payout.created', ...origin({ at: T0 + 3 }), payout: po },
    payoutChanged(po, 'pending', 'failed', { at: T0 + 4 }),
    {
      type: 'refund.created',
      ...origin({ at: T0 + 5 }),
      refund: refund(paid, 700),
      payment: paid,
      webhookUrl: null,
    },
    paymentChanged(paid, 'succeeded', 'refunded', { at: T0 + 6 }),
  ];
}

/** A request a stub fetch or a receiver saw. */
export interface Seen {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** A fetch that records each request and answers with `answer` (default 200). */
export function stubFetch(
  answer: (req: Seen, index: number) => Response | Promise<Response> = () => new Response('ok'),
) {
  const seen: Seen[] = [];
  const fetchImpl = (async (input: string | URL | Request, init?: RequestInit) => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((v, k) => {
      headers[k] = v;
    });
    const raw = init?.body;
    const body = raw instanceof Uint8Array ? new TextDecoder().decode(raw) : String(raw ?? '');
    const req: Seen = { url: String(input), headers, body };
    seen.push(req);
    return answer(req, seen.length - 1);
  }) as typeof fetch;
  return { fetch: fetchImpl, seen };
}

/**
 * A webhook service on a manual clock at T0 delivering to {@link stubFetch}`(answer)`, with its log lines and the
 * clock's time of each attempt; `options` override any of its options. The test closes it.
 */
export function stubbedService(
  answer?: Parameters<typeof stubFetch>[0],
  options: Partial<Parameters<typeof createWebhookService>[0]> = {},
) {
  const bus = new EventBus();
  const clock = new ManualClock(T0);
  const stub = stubFetch(answer);
  const lines: string[] = [];
  const attemptTimes: number[] = [];
  const fetchImpl: typeof fetch = (input, init) => {
    attemptTimes.push(clock.now());
    return stub.fetch(input, init);
  };
  const svc = createWebhookService({
    bus,
    clock,
    fetch: fetchImpl,
    logger: (l) => lines.push(l),
    ...options,
  });
  return { bus, clock, stub, seen: stub.seen, lines, attemptTimes, svc };
}

/** For a file's tests: a {@link stubbedService} maker whose service is closed after the test that made it. */
export function stubbedServicePerTest(): typeof stubbedService {
  let current: WebhookService | undefined;
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return (answer, options) => {
    const made = stubbedService(answer, options);
    current = made.svc;
    return made;
  };
}

export interface Receiver {
  url: string;
  seen: Seen[];
  server: Server;
  close(): Promise<void>;
}

/** A real node:http receiver on 127.0.0.1, port 0. */
export async function receiver(
  handle: (req: IncomingMessage, res: ServerResponse, body: string) => void = (_q, res) => res.end('ok'),
): Promise<Receiver> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers))
        headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
      seen.push({ url: req.url ?? '', headers, body });
      handle(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    seen,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** HMAC-SHA256 hex, computed independently of the code under test. */
export function hmac(key: string, data: string): string {
  return createHmac('sha256', key).update(data, 'utf8').digest('hex');
}
