export type { ApiResult } from './client/api-promise.js';
export { ApiPromise } from './client/api-promise.js';
export type { RawRequestOptions } from './psp-client.js';
export { PspClient } from './psp-client.js';
export {
  AmlBlockedError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ForbiddenPurposeError,
  IdempotentConflictError,
  InternalServerError,
  IpNotAllowedError,
  LiveNotEnabledError,
  NotFoundError,
  NotPendingError,
  PermissionDeniedError,
  PspAbortError,
  PspApiError,
  PspConnectionError,
  PspError,
  PspResponseError,
  PspTimeoutError,
  PspValidationError,
  RateLimitError,
  SignatureError,
  UnprocessableEntityError,
} from './client/errors.js';
export type { DisconnectReason, Lease, StreamEventsOptions } from './client/event-stream.js';
export type { FetchOptions } from './client/extras.js';
export type { BackoffOptions } from './client/sse/reconnect.js';
export type { Logger } from './client/logger.js';
export type { AppInfo, ClientOptions, RequestOptions } from './client/options.js';
export type { LogLevel } from './client/log-level.js';
export type { AttemptContext, Middleware, Operation } from './client/middleware.js';
export type { TelemetryOptions } from './client/telemetry.js';
export type { WaitForOptions } from './resources/wait-for.js';
export { WaitTimeoutError } from './resources/wait-for.js';
export type { BankListOptions } from './resources/banks.js';
export type { Banks } from './resources/banks.js';
export type { EventStream, Events } from './resources/events.js';
export type { Payments } from './resources/payments.js';
export type { Payouts } from './resources/payouts.js';
export type {
  PaymentCreatedPayload,
  PaymentWebhookEvent,
  PayoutCreatedPayload,
  PayoutWebhookEvent,
  RefundCreatedPayload,
  SseEvent,
  StatusChangedPayload,
} from './schemas/events.js';
export type {
  PaymentWebhookEventName,
  PayoutWebhookEventName,
  SseKind,
  WebhookEventName,
} from './schemas/names.js';
// A value, not `export type`: an import of a type-only const compiles in JS and is undefined at run time.
export { SSE_KINDS } from './schemas/names.js';

export type { CreatePaymentInput, CreatePayoutInput, CreateRefundInput } from './schemas/inputs.js';
export type { FieldIssue } from './schemas/issues.js';
export {
  LIMITS,
  MODES,
  PAYMENT_METHODS,
  PAYMENT_STATUSES,
  PAYOUT_METHODS,
  PAYOUT_STATUSES,
  REFUND_STATUSES,
} from './schemas/limits.js';
export type {
  BankList,
  CancelPaymentResponse,
  CreatePaymentResponse,
  CreatePayoutResponse,
  Payment,
  PaymentMethod,
  PaymentStatus,
  Payout,
  PayoutStatus,
  Refund,
  RefundStatus,
  SBPBank,
  WebhookPayment,
} from './schemas/resources.js';
