/**
 * The error codes of the API's error body `{ error: { code, message } }` (spec 2.9 and section 7), each written
 * once, here, with the HTTP status it comes with. Both halves read this table: the reference answers a refusal
 * at its code's status (`refuse(CODE.not_pending, message)` in src/reference/domain/errors.ts), the client picks
 * the typed error of a code from `class` (src/client/api-errors.ts), the OpenAPI document lists each operation's
 * codes under their statuses (src/openapi). Elsewhere a code is named through {@link CODE}, so a typo fails tsc.
 *
 * Adding a code: one row here (its status; a client class only when callers must branch on it), then
 * `throw refuse(CODE.new_code, 'message')` where the reference refuses, the code in the operation's refusals in
 * src/openapi/operations.ts when the public API can answer it, its row in docs/errors.md and a test that provokes
 * it (docs/architecture.md, "How to add an error code": a test fails for each left out).
 */

/** The client's error classes a code can pick (src/client/api-errors.ts maps each name to its class). */
export type ErrorClassName =
  | 'SignatureError'
  | 'LiveNotEnabledError'
  | 'IpNotAllowedError'
  | 'AmlBlockedError'
  | 'ForbiddenPurposeError'
  | 'IdempotentConflictError'
  | 'NotPendingError';

/** One row of {@link ERROR_CODES}. */
export interface ErrorCodeInfo {
  /** The HTTP status an answer with this code has. */
  readonly status: number;
  /** The client's class for this code; without one, the client picks the class by status. */
  readonly class?: ErrorClassName | undefined;
  /**
   * The code the client gives an answer of this status that carries none (one per status). `conflict` and
   * `unprocessable_entity` are the client's only: the reference always names a more specific code. The reference's
   * public API never answers `forbidden` either; its control surface does, to a merchant admin token on a route of
   * the whole reference.
   */
  readonly ofStatus?: true | undefined;
}

// The rows are in two parts, one table: the codes the client reads (a class of their own, or the code of a status
// without one), then the codes only the reference answers, which the client's bundle need not carry.
const CLIENT_ROWS = {
  // 400: the request is invalid, the reason in the message (a body too large or not JSON too: spec section 4
  // lists no 413 or 415; docs/spec-decisions.md).
  bad_request: { status: 400, ofStatus: true },
  // The spec also files `signature_required` under 401; the reference answers 400, and the class goes by code.
  signature_required: { status: 400, class: 'SignatureError' },
  invalid_signature: { status: 400, class: 'SignatureError' },
  unauthorized: { status: 401, ofStatus: true },
  forbidden: { status: 403, ofStatus: true },
  ip_not_allowed: { status: 403, class: 'IpNotAllowedError' },
  live_not_enabled: { status: 403, class: 'LiveNotEnabledError' },
  // A merchant's block (the cabinet sets one of these two) is also its refusal's code.
  aml_blocked: { status: 403, class: 'AmlBlockedError' },
  forbidden_purpose: { status: 403, class: 'ForbiddenPurposeError' },
  not_found: { status: 404, ofStatus: true },
  request_timeout: { status: 408, ofStatus: true },
  conflict: { status: 409, ofStatus: true },
  idempotent_conflict: { status: 409, class: 'IdempotentConflictError' },
  not_pending: { status: 409, class: 'NotPendingError' },
  unprocessable_entity: { status: 422, ofStatus: true },
  rate_limited: { status: 429, ofStatus: true },
  // Any 5xx without a code.
  internal_error: { status: 500, ofStatus: true },
} as const satisfies Record<string, ErrorCodeInfo>;

const REFERENCE_ROWS = {
  method_not_allowed: { status: 405 },
  not_succeeded: { status: 409 },
  already_refunded: { status: 409 },
  refund_limit_reached: { status: 409 },
  storage_limit_reached: { status: 409 },
  // The control surface's (/_cabinet, /_simulator) own bounds and rules.
  invalid_transition: { status: 409 },
  clock_not_manual: { status: 409 },
  too_many_merchants: { status: 409 },
  too_many_api_keys: { status: 409 },
  too_many_webhook_endpoints: { status: 409 },
  too_many_rules: { status: 409 },
  amount_exceeds_balance: { status: 422 },
  route_not_configured: { status: 422 },
  bank_not_supported: { status: 422 },
  // The buyer's page asked for under a host name it does not serve (a DNS-rebound page); RFC 9110's 421.
  misdirected_request: { status: 421 },
  headers_too_large: { status: 431 },
  // Too busy reading other request bodies (Retry-After); also a fault rule's default (a rule may name any code:
  // the network in front of the API answers what it likes).
  service_unavailable: { status: 503 },
  // Shadow mode's upstream did not answer in time (its headers, or a compared body): the shadow gave up on it.
  gateway_timeout: { status: 504 },
} as const satisfies Record<string, ErrorCodeInfo>;

type Table = typeof CLIENT_ROWS & typeof REFERENCE_ROWS;

/** An error code of the API: a key of {@link ERROR_CODES}. */
export type ErrorCode = keyof Table;
/** The status of `C` in the table, as a literal type (`StatusOf<'not_pending'>` is `409`). */
export type StatusOf<C extends ErrorCode> = Table[C]['status'];

/**
 * The rows the client reads: each code with a class of its own, and the code an answer of a status without one
 * gets. Part of {@link ERROR_CODES}.
 *
 * @example
 * CLIENT_CODES.not_pending.class; // 'NotPendingError'
 */
export const CLIENT_CODES: { readonly [C in keyof typeof CLIENT_ROWS]: ErrorCodeInfo } = CLIENT_ROWS;

/**
 * Every error code with its status, and the client's class for the codes that have their own.
 *
 * @example
 * ERROR_CODES.not_pending.status; // 409
 */
export const ERROR_CODES: { readonly [C in ErrorCode]: ErrorCodeInfo } = /* @__PURE__ */ Object.assign(
  {},
  CLIENT_ROWS,
  REFERENCE_ROWS,
);

const byName = (table: object) => Object.fromEntries(Object.keys(table).map((code) => [code, code]));

/**
 * Each code by its name, for writing it elsewhere: `CODE.not_pending` is `'not_pending'`, typed as that literal.
 *
 * @example
 * throw refuse(CODE.not_pending, 'Only a pending payment can be cancelled.');
 */
export const CODE = /* @__PURE__ */ byName(ERROR_CODES) as { readonly [C in ErrorCode]: C };

/**
 * The codes the SDK gives an error of its own, for an answer that is not the API's: a redirect (the API never
 * redirects; status 0 when nothing was sent), and a status without a code that no row of the table names.
 *
 * @example
 * err.code === SDK_CODES.unexpected_redirect; // check baseUrl
 */
export const SDK_CODES = { unexpected_redirect: 'unexpected_redirect', http_error: 'http_error' } as const;
