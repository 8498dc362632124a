// Every check of the kit, in the order they run.
import type { Check } from '../check.js';
import { AUTH_CHECKS } from './auth.js';
import { BANK_CHECKS } from './banks.js';
import { EVENT_CHECKS } from './events.js';
import { IDEMPOTENCY_CHECKS } from './idempotency.js';
import { OPERATION_CHECKS } from './operations.js';
import { PAYMENT_CHECKS } from './payments.js';
import { PAYOUT_CHECKS } from './payouts.js';
import { RATE_LIMIT_CHECKS } from './rate-limit.js';
import { REFUND_CHECKS } from './refunds.js';
import { SIGNING_CHECKS } from './signing.js';
import { WEBHOOK_CHECKS } from './webhooks.js';

export const CHECKS: readonly Check[] = [
  ...OPERATION_CHECKS,
  ...AUTH_CHECKS,
  ...SIGNING_CHECKS,
  ...IDEMPOTENCY_CHECKS,
  ...RATE_LIMIT_CHECKS,
  ...PAYMENT_CHECKS,
  ...REFUND_CHECKS,
  ...PAYOUT_CHECKS,
  ...BANK_CHECKS,
  ...EVENT_CHECKS,
  ...WEBHOOK_CHECKS,
];
