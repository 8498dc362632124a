import type { Payment, Payout, Refund } from '../../schemas/resources.js';
import { SBP_BANKS } from './bank-directory.js';
import { iso, isoOrNull } from './ids.js';
import type { PaymentRecord, PayoutRecord, RefundRecord } from './records.js';

/** A refund as GET and webhooks show it (spec 2.4). */
export function refundToWire(r: RefundRecord): Refund {
  return {
    id: r.id,
    payment_id: r.paymentId,
    merchant_id: r.merchantId,
    amount: r.amount,
    reason: r.reason,
    status: r.status,
    created_at: iso(r.createdAt),
    completed_at: isoOrNull(r.completedAt),
  };
}

const CARD_BRANDS = ['MIR', 'VISA', 'MASTERCARD'] as const;

/** A payment as `payments.get` shows it (spec 2.1). */
export function paymentToWire(p: PaymentRecord): Payment {
  // Who paid is not stored: it is derived from the payment id, so every read shows the same simulated buyer and a
  // stored payment costs no extra memory for it.
  const seed = Number.parseInt(p.id.slice(0, 8), 16);
  const last4 = String(seed % 10_000).padStart(4, '0');
  const sbp = p.capturedAt !== null && (p.method === 'sbp' || p.method === 'any');
  const card = p.capturedAt !== null && !sbp;
  return {
    id: p.id,
    merchant_id: p.merchantId,
    terminal_id: p.terminal.id,
    terminal_name: p.terminal.name,
    order_id: p.orderId,
    amount: p.amount,
    amount_refunded: p.amountRefunded,
    amount_usdt: null,
    currency: p.currency,
    method: p.method,
    status: p.status,
    rrn: p.capturedAt === null ? null : rrnOf(p),
    bank_name: p.bank,
    return_url: p.returnUrl,
    created_at: iso(p.createdAt),
    captured_at: isoOrNull(p.capturedAt),
    finalized_at: isoOrNull(p.finalizedAt),
    expires_at: iso(p.expiresAt),
    processing_until: isoOrNull(p.processingUntil),
    metadata: p.metadata ? { ...p.metadata } : null,
    customer_card_brand: card ? CARD_BRANDS[seed % CARD_BRANDS.length]! : null,
    customer_card_mask: card ? `220220******${last4}` : null,
    customer_card_holder: card ? 'CARD HOLDER' : null,
    customer_phone_mask: sbp ? `+7 *** ***-${last4.slice(0, 2)}-${last4.slice(2)}` : null,
    customer_payer_bank: sbp ? (SBP_BANKS[seed % SBP_BANKS.length]?.name_en ?? null) : null,
    refunds: p.refunds ? p.refunds.map(refundToWire) : [],
  };
}

// Retrieval reference number: 12 digits, fixed per payment.
function rrnOf(p: PaymentRecord): string {
  const n = Number.parseInt(p.id.replace(/-/g, '').slice(0, 12), 16) % 1e12;
  return String(n).padStart(12, '0');
}

/** A payout as `payouts.get` shows it (spec 2.7). */
export function payoutToWire(p: PayoutRecord): Payout {
  return {
    id: p.id,
    merchant_id: p.merchantId,
    terminal_id: p.terminal.id,
    amount: p.amount,
    currency: p.currency,
    method: p.method,
    status: p.status,
    fail_reason: p.failReason,
    recipient: { phone: p.phone, bank_id: p.bankId, full_name: p.fullName },
    created_at: iso(p.createdAt),
    completed_at: isoOrNull(p.completedAt),
  };
}
