/**
 * The operations of spec section 4, one row each, keyed by the name middleware and telemetry see. The client's
 * methods (src/client/method.ts), the reference's public routes (src/reference/http/public-routes.ts) and the
 * OpenAPI paths (src/openapi/operations.ts) are made from these rows; a path of the public API is written here
 * and nowhere else in src/ (test/operations.test.ts). It ships in the client bundle: facts only, no prose.
 */
import type { inputSchemas } from './inputs.js';
import type { responseSchemas } from './resources.js';

/** The public API's prefix (spec 9); every row's `path` is below it. */
export const PUBLIC_PREFIX = '/api/v1/public';

/** One operation of {@link OPERATIONS}. */
export interface OperationRow {
  readonly method: 'GET' | 'POST';
  /** Path template below {@link PUBLIC_PREFIX}, OpenAPI style: `{id}` is the one varying segment. */
  readonly path: string;
  /** What `{id}` names (`payment`): a word for messages and argument names, and the kind of object it is. */
  readonly id?: string | undefined;
  /** The request body's schema in `inputSchemas()`; no body when absent. */
  readonly input?: keyof ReturnType<typeof inputSchemas> | undefined;
  /**
   * The body may be left out. Without `input` the operation takes no body (none, or `{}`); with it, the body is
   * JSON, required unless `inputOptional`. The reference's route reads the body by this rule, never by hand.
   */
  readonly inputOptional?: true | undefined;
  /** The JSON answer's schema in `responseSchemas()`; absent for the event stream. */
  readonly answer?: keyof ReturnType<typeof responseSchemas> | undefined;
  /** What the answer is called in a `PspResponseError` message. */
  readonly what?: string | undefined;
  /**
   * Sends an `Idempotency-Key` (spec 5.6): the caller's, else a fresh UUIDv4, the same on every retry. The
   * reference reads and checks the header for these rows only.
   */
  readonly idempotent?: true | undefined;
  /** Moves money: refused while the merchant is blocked (`aml_blocked`, `forbidden_purpose`; spec 7). */
  readonly movesMoney?: true | undefined;
  /** Repeating it cannot duplicate an effect (GETs, keyed POSTs, cancel): only these are retried. */
  readonly safe: boolean;
}

// Row order is the OpenAPI document's path order.
export const OPERATIONS = {
  'payments.create': {
    method: 'POST',
    path: '/payments',
    input: 'CreatePaymentInput',
    answer: 'CreatePaymentResponse',
    what: 'payment creation',
    idempotent: true,
    movesMoney: true,
    safe: true,
  },
  'payments.get': {
    method: 'GET',
    path: '/payments/{id}',
    id: 'payment',
    answer: 'Payment',
    what: 'payment',
    safe: true,
  },
  'payments.cancel': {
    method: 'POST',
    path: '/payments/{id}/cancel',
    id: 'payment',
    answer: 'CancelPaymentResponse',
    what: 'cancel answer',
    safe: true,
  },
  'payments.refund': {
    method: 'POST',
    path: '/payments/{id}/refund',
    id: 'payment',
    input: 'CreateRefundInput',
    inputOptional: true,
    answer: 'Refund',
    what: 'refund',
    idempotent: true,
    movesMoney: true,
    safe: true,
  },
  'payouts.create': {
    method: 'POST',
    path: '/payouts',
    input: 'CreatePayoutInput',
    answer: 'CreatePayoutResponse',
    what: 'payout creation',
    idempotent: true,
    movesMoney: true,
    safe: true,
  },
  'payouts.get': {
    method: 'GET',
    path: '/payouts/{id}',
    id: 'payout',
    answer: 'Payout',
    what: 'payout',
    safe: true,
  },
  'banks.list': { method: 'GET', path: '/banks/sbp', answer: 'BankList', what: 'bank list', safe: true },
  'events.stream': { method: 'GET', path: '/events', safe: true },
} as const satisfies Record<string, OperationRow>;

/** The name of an operation of spec section 4 (`payments.refund`). */
export type OperationName = keyof typeof OPERATIONS;

/**
 * The path of an operation below {@link PUBLIC_PREFIX}, with `id` in place of `{id}`.
 *
 * @example
 * pathOf('payments.refund', id); // `/payments/${id}/refund`
 */
export function pathOf(name: OperationName, id = '{id}'): string {
  return OPERATIONS[name].path.replace('{id}', id);
}

/**
 * An operation as one line, method and full path (`POST /api/v1/public/payments`): the reference's idempotency
 * scope and the text of messages that point a reader at an endpoint.
 *
 * @example
 * routeOf('banks.list'); // 'GET /api/v1/public/banks/sbp'
 */
export function routeOf(name: OperationName, id?: string): string {
  return `${OPERATIONS[name].method} ${PUBLIC_PREFIX}${pathOf(name, id)}`;
}
