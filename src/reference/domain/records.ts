import type { PaymentMethod, PaymentStatus, PayoutStatus } from '../../schemas/resources.js';
import type { KeyMode, TerminalRecord } from './accounts.js';
import type { PaymentOutcome, PayoutOutcome } from './outcomes.js';

// Stored records are compact classes (one hidden class each, times as epoch numbers, shared references for
// merchant/terminal) and are serialised to the wire on read: 100,000 payments must fit in well under 200 MB.

// A class whose instances carry the fields they are made with, read-only: a record's creation fields, declared
// once (in its Init interface) and type-checked where it is made.
const Fields = class {
  constructor(init: object) {
    Object.assign(this, init);
  }
} as new <I extends object>(
  init: I,
) => Readonly<I>;

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
export class PaymentRecord extends Fields<PaymentInit> {
  status: PaymentStatus = 'pending';
  amountRefunded = 0;
  capturedAt: number | null = null;
  finalizedAt: number | null = null;
  processingUntil: number | null = null;
  failureCode: string | null = null;
  failureMessage: string | null = null;
  refunds: RefundRecord[] | null = null;

  get merchantId(): string {
    return this.terminal.merchantId;
  }

  get shopId(): string {
    return this.terminal.shopId;
  }
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
export class PayoutRecord extends Fields<PayoutInit> {
  status: PayoutStatus = 'pending';
  failReason: string | null = null;
  completedAt: number | null = null;

  get merchantId(): string {
    return this.terminal.merchantId;
  }

  get shopId(): string {
    return this.terminal.shopId;
  }
}
