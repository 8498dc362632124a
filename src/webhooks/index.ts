/**
 * `psp-sdk/webhooks`: verify and sign Payment Service webhooks. Light (no zod at run time), synchronous, and the
 * same in Node, Deno, Bun and edge runtimes.
 *
 * @module
 */
export { type WebhookVerificationReason, WebhookVerificationError } from './errors.js';
export { createWebhookHandler, type WebhookHandlerOptions, type WebhookHandlers } from './handler.js';
export { type HmacBackend, hmacBackend } from '../internal/hmac.js';
export type { RawWebhookBody, WebhookHeaders } from './input.js';
export {
  type DedupeBegin,
  logWebhookError,
  type OnceWebhookOptions,
  type OnceWebhookResult,
  onceWebhook,
  type WebhookDedupe,
  type WebhookRunContext,
} from './once.js';
export {
  computeSignatureHeader,
  type SignatureHeaderInput,
  type SignedWebhook,
  type SignWebhookOptions,
  signWebhook,
} from './sign.js';
// Type only: the name lists (values of psp-sdk/reference, where endpoints are configured) would cost this entry's
// budget bytes a receiver has no use for.
export type { SignatureVersion } from '../schemas/names.js';
export type {
  KnownWebhookEvent,
  PaymentWebhookEvent,
  PaymentWebhookEventName,
  PayoutWebhookEvent,
  PayoutWebhookEventName,
  UnknownWebhookEvent,
  UnknownWebhookEventName,
  WebhookEvent,
  WebhookEventName,
  WebhookEventOf,
} from './types.js';
export { type VerifyWebhookOptions, verifyWebhook, type WebhookSecret } from './verify.js';
