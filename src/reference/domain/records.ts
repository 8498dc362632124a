import type { PaymentMethod, PaymentStatus, PayoutStatus } from '../../schemas/resources.js';
import type { KeyMode, TerminalRecord } from './accounts.js';
import type { PaymentOutcome, PayoutOutcome } from './outcomes.js';

// Stored records are compact classes (one hidden class each, times as epoch numbers, shared references for
// merchant/terminal) and are serialised to the wire on read: 100,000 payments must fit in well under 200 MB.

// The base of a terminal's records: each carries the fields it is made with, read-only (declared once, in its
// Init interface, and type-checked where it is made), and its merchant and shop are its terminal's.
const OfTerminal = class {
  declare readonly terminal: TerminalRecord;

  constructor(init: object) {
    Object.assign(this, init);
  }

  get merchantId(): string {
    return this.terminal.merchantId;
  }

  get shopId(): string {
    return this.terminal.shopId;
  }
} as new <I extends { terminal: TerminalRecord }>(
  init: I,
) => Readonly<I> & { readonly merchantId: string; readonly shopId: string };

/** A refund as stored. */
export class RefundRecord {
  status: 'pending' | 'succeeded' | 'failed' = 'succeeded';
  completedAt: number | null = null;
  constructor(
    readonly id: string,
    readonly paymentId: string,
    readonly merchantId: string,
    readonly amount: number,
    readonly reason: string | null,
    readonly createdAt: number,
  ) {}
}

/** The fields a payment is created with. */
export interface PaymentInit {
  id: string;
  terminal: TerminalRecord;
  mode: KeyMode;
  amount: number;
  currency: string;
  method: PaymentMethod;
  orderId: string | null;
  customerId: string | null;
  description: string | null;
  returnUrl: string | null;
  webhookUrl: string | null;
  metadata: Readonly<Record<string, string>> | null;
  createdAt: number;
  expiresAt: number;
  outcome: PaymentOutcome;
  bank: string | null;
  bankRef: string | null;
}

/** A payment as stored. */
export class PaymentRecord extends OfTerminal<PaymentInit> {
  status: PaymentStatus = 'pending';
  amountRefunded = 0;
  capturedAt: number | null = null;
  finalizedAt: number | null = null;
  processingUntil: number | null = null;
  failureCode: string | null = null;
  failureMessage: string | null = null;
  refunds: RefundRecord[] | null = null;
}

/** The fields a payout is created with. */
export interface PayoutInit {
  id: string;
  terminal: TerminalRecord;
  mode: KeyMode;
  amount: number;
  currency: string;
  method: string;
  phone: string;
  bankId: string;
  fullName: string | null;
  createdAt: number;
  outcome: PayoutOutcome;
  bank: string | null;
  bankRef: string | null;
}

/** A payout as stored. */
export class PayoutRecord extends OfTerminal<PayoutInit> {
  status: PayoutStatus = 'pending';
  failReason: string | null = null;
  completedAt: number | null = null;
}
