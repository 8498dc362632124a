import type { PaymentMethod, PaymentStatus, PayoutStatus } from '../../schemas/resources.js';
import type { KeyMode, TerminalRecord } from './accounts.js';
import type { PaymentOutcome, PayoutOutcome } from './outcomes.js';

// Stored records are compact classes (one hidden class each, times as epoch numbers, shared references for
// merchant/terminal) and are serialised to the wire on read: 100,000 payments must fit in well under 200 MB.

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
export class PaymentRecord {
  readonly id: string;
  readonly terminal: TerminalRecord;
  readonly mode: KeyMode;
  readonly amount: number;
  readonly currency: string;
  readonly method: PaymentMethod;
  readonly orderId: string | null;
  readonly customerId: string | null;
  readonly description: string | null;
  readonly returnUrl: string | null;
  readonly webhookUrl: string | null;
  readonly metadata: Readonly<Record<string, string>> | null;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly outcome: PaymentOutcome;
  readonly bank: string | null;
  readonly bankRef: string | null;
  status: PaymentStatus = 'pending';
  amountRefunded = 0;
  capturedAt: number | null = null;
  finalizedAt: number | null = null;
  processingUntil: number | null = null;
  failureCode: string | null = null;
  failureMessage: string | null = null;
  refunds: RefundRecord[] | null = null;

  constructor(init: PaymentInit) {
    this.id = init.id;
    this.terminal = init.terminal;
    this.mode = init.mode;
    this.amount = init.amount;
    this.currency = init.currency;
    this.method = init.method;
    this.orderId = init.orderId;
    this.customerId = init.customerId;
    this.description = init.description;
    this.returnUrl = init.returnUrl;
    this.webhookUrl = init.webhookUrl;
    this.metadata = init.metadata;
    this.createdAt = init.createdAt;
    this.expiresAt = init.expiresAt;
    this.outcome = init.outcome;
    this.bank = init.bank;
    this.bankRef = init.bankRef;
  }

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
export class PayoutRecord {
  readonly id: string;
  readonly terminal: TerminalRecord;
  readonly mode: KeyMode;
  readonly amount: number;
  readonly currency: string;
  readonly method: string;
  readonly phone: string;
  readonly bankId: string;
  readonly fullName: string | null;
  readonly createdAt: number;
  readonly outcome: PayoutOutcome;
  readonly bank: string | null;
  readonly bankRef: string | null;
  status: PayoutStatus = 'pending';
  failReason: string | null = null;
  completedAt: number | null = null;

  constructor(init: PayoutInit) {
    this.id = init.id;
    this.terminal = init.terminal;
    this.mode = init.mode;
    this.amount = init.amount;
    this.currency = init.currency;
    this.method = init.method;
    this.phone = init.phone;
    this.bankId = init.bankId;
    this.fullName = init.fullName;
    this.createdAt = init.createdAt;
    this.outcome = init.outcome;
    this.bank = init.bank;
    this.bankRef = init.bankRef;
  }

  get merchantId(): string {
    return this.terminal.merchantId;
  }

  get shopId(): string {
    return this.terminal.shopId;
  }
}
