/**
 * `psp-sdk/reference`: the complete Payment Service, in memory. Every endpoint, status and error code of the
 * spec, with state, plus the control surface of the merchant cabinet and the bank simulator, and one clock
 * that drives every timed rule.
 *
 * - {@link createReference}: the service as a Web-standard `fetch(request)` handler, no sockets. Pair it with
 *   `psp-sdk/reference/msw` to run the SDK against it inside a test.
 * - {@link startReference}: the same service on a real HTTP server (Node, Deno), as the `psp-reference` CLI
 *   runs it.
 *
 * @example
 * ```ts
 * import { PspClient } from 'psp-sdk';
 * import { startReference } from 'psp-sdk/reference';
 *
 * const ref = await startReference({ port: 0, clock: 'manual' });
 * const psp = new PspClient({ apiKey: ref.api_key, baseUrl: ref.base_url });
 * const { payment, payment_url } = await psp.payments.create({ amount: 150_000, order_id: 'A-1' });
 * // Play the buyer on payment_url, or the bank:
 * await ref.control.succeedPayment(payment.id);
 * await psp.payments.refund(payment.id, { amount: 50_000 });
 * await ref.close();
 * ```
 *
 * @packageDocumentation
 */

export {
  AssertionError,
  type DeliveryFilter,
  type DeliveryRecord,
  type ReferenceAssertions,
  type RequestFilter,
} from './assertions.js';
export type { BankAdapter, BankAnswer } from './domain/bank.js';
export type { ReadinessFinding, ReadinessItem, ReadinessReport } from './readiness/index.js';
export { readinessJUnit, readinessMarkdown, readinessText } from './readiness/format.js';
export { FakeBank } from './domain/bank.js';
export type { Clock, Timer, TimerCallback } from './domain/clock.js';
export { ManualClock, RealClock } from './domain/clock.js';
export type {
  ApiKeyInfo,
  CabinetApi,
  CreatedMerchant,
  MerchantSettings,
  SimulatorApi,
  WebhookChaosApi,
  TerminalSettings,
} from './control.js';
export type { BankRefusal, PaymentOutcome, PayoutOutcome } from './domain/outcomes.js';
export { planPaymentOutcome, planPayoutOutcome } from './domain/outcomes.js';
export type { FaultRule, FaultRuleInput, FaultsApi } from './faults/index.js';
export { ConnectionReset } from './faults/index.js';
export type { ControlApi, ReferenceControl } from './handle.js';
export type { JournalEntry, JournalFilter, JournalOptions, JournalPage } from './journal/index.js';
export type { Reference, ReferenceOptions, ReferenceStats, RequestInfo, StartupFacts } from './service.js';
export { createReference } from './service.js';
export type {
  RunningShadow,
  Shadow,
  ShadowAnswer,
  ShadowDifference,
  ShadowItem,
  ShadowOptions,
  ShadowReport,
  StartShadowOptions,
} from './shadow/index.js';
export { createShadow, shadowSummary, startShadow } from './shadow/index.js';
export type { RunningReference, StartReferenceOptions } from './start.js';
export { startReference } from './start.js';
export type { Restored, Snapshot, StateApi, StateSaving } from './state/index.js';
export { SIGNATURE_VERSIONS, type SignatureVersion, WEBHOOK_EVENTS } from '../schemas/names.js';
export type { CreatedEndpoint } from './webhooks/endpoints.js';
export type { DeliveryAttempt } from './webhooks/log.js';
export type { ChaosKind, WebhookChaosConfig } from './webhooks/chaos.js';
