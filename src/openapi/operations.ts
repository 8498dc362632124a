/**
 * The operations of spec section 4 as the reference answers them: for each, its path, parameters, body and every
 * status it can answer, with the error codes behind each. The statuses are the reference's, read from its refusals
 * (src/reference/http: auth.ts, body.ts, context.ts; src/reference/domain: payments, refunds, payouts, idempotency)
 * and checked against every answer of the reference's own HTTP tests (test/openapi/answer-check.ts), so a status
 * the reference starts to answer and this table does not list fails a test.
 */

/** The public API's prefix (spec 9). */
export const PUBLIC_PREFIX = '/api/v1/public';

/** One answer of an operation: a component schema for JSON, or the SSE stream. */
export interface Answer {
  description: string;
  /** The component of the JSON body; absent for an error (the Error component) or the stream. */
  schema?: string;
  /** `text/event-stream` instead of JSON. */
  stream?: true;
  /** A 200 that replays an earlier creation carries `Idempotent-Replayed: true`. */
  replay?: true;
}

export interface Operation {
  method: 'get' | 'post';
  /** Path under {@link PUBLIC_PREFIX}, OpenAPI style (`/payments/{id}`). */
  path: string;
  operationId: string;
  summary: string;
  /** Spec section, e.g. `4.1`. */
  section: string;
  /** What the `{id}` path parameter names. */
  id?: 'payment' | 'payout';
  /** Takes an `Idempotency-Key` (spec 5.6). */
  idempotent?: true;
  /** The request body's component and whether it is required. */
  body?: { schema: string; required: boolean };
  /** Success answers by status. */
  ok: Record<number, Answer>;
  /** Refusals particular to this operation, by status, with their codes (the shared ones are added by document.ts). */
  refusals: Record<number, string>;
}

const SIG =
  '`signature_required` (the terminal requires signatures and none was sent), `invalid_signature`, `payload_too_large` (a body over 1 MiB: the body is read on every request, as the signature covers it)';
const BAD_BODY =
  '`unsupported_media_type` (a body that is not JSON in UTF-8), `bad_request` (a body that is not valid JSON, a field that breaks its rule or is unknown, a bad Idempotency-Key)';

/** Every operation of spec section 4 (4.9, the merchant's webhook receiver, is in the document's `webhooks`). */
export const OPERATIONS: readonly Operation[] = [
  {
    method: 'post',
    path: '/payments',
    operationId: 'createPayment',
    summary: 'Create a payment',
    section: '4.1',
    idempotent: true,
    body: { schema: 'CreatePaymentInput', required: true },
    ok: {
      201: { description: 'The payment was created.', schema: 'CreatePaymentResponse' },
      200: {
        description:
          'A replay of the same Idempotency-Key with the same body: the earlier answer, `idempotent: true`.',
        schema: 'CreatePaymentResponse',
        replay: true,
      },
    },
    refusals: {
      400: `${SIG}, ${BAD_BODY}.`,
      403: '`ip_not_allowed`, `live_not_enabled`, `aml_blocked` or `forbidden_purpose`.',
      409: '`idempotent_conflict` (the Idempotency-Key was used with another body) or `storage_limit_reached` (the bound on the objects one merchant may hold).',
    },
  },
  {
    method: 'get',
    path: '/payments/{id}',
    operationId: 'getPayment',
    summary: 'Get a payment',
    section: '4.2',
    id: 'payment',
    ok: {
      200: {
        description: 'The payment with its current status, refunds and customer info.',
        schema: 'Payment',
      },
    },
    refusals: {
      400: `${SIG}.`,
      403: '`ip_not_allowed` or `live_not_enabled`.',
      404: '`not_found`: no payment of this merchant has this id.',
    },
  },
  {
    method: 'post',
    path: '/payments/{id}/cancel',
    operationId: 'cancelPayment',
    summary: 'Cancel a pending payment',
    section: '4.3',
    id: 'payment',
    ok: {
      200: {
        description: 'The payment is cancelled; webhook `payment.cancelled` follows.',
        schema: 'CancelPaymentResponse',
      },
    },
    refusals: {
      400: `${SIG}, \`unsupported_media_type\`, or \`bad_request\` (a body other than none or \`{}\`: this operation takes none).`,
      403: '`ip_not_allowed` or `live_not_enabled`.',
      404: '`not_found`: no payment of this merchant has this id.',
      409: '`not_pending`: the payment is not pending.',
    },
  },
  {
    method: 'post',
    path: '/payments/{id}/refund',
    operationId: 'refundPayment',
    summary: 'Refund a payment, in full or in part',
    section: '4.4',
    id: 'payment',
    idempotent: true,
    body: { schema: 'CreateRefundInput', required: false },
    ok: {
      201: { description: 'The refund was made; webhook `payment.refunded` follows.', schema: 'Refund' },
      200: {
        description: 'A replay of the same Idempotency-Key with the same body.',
        schema: 'Refund',
        replay: true,
      },
    },
    refusals: {
      400: `${SIG}, ${BAD_BODY}.`,
      403: '`ip_not_allowed`, `live_not_enabled`, `aml_blocked` or `forbidden_purpose`.',
      404: '`not_found`: no payment of this merchant has this id.',
      409: '`not_succeeded` (the payment is not succeeded), `already_refunded`, `refund_limit_reached` (the 100th refund must return the whole balance), `idempotent_conflict`, or `storage_limit_reached` (the bound on the objects one merchant may hold).',
      422: '`amount_exceeds_balance`: the amount is larger than what is left to refund.',
    },
  },
  {
    method: 'post',
    path: '/payouts',
    operationId: 'createPayout',
    summary: 'Create an SBP payout',
    section: '4.5',
    idempotent: true,
    body: { schema: 'CreatePayoutInput', required: true },
    ok: {
      201: { description: 'The payout was created.', schema: 'CreatePayoutResponse' },
      200: {
        description: 'A replay of the same Idempotency-Key with the same body.',
        schema: 'CreatePayoutResponse',
        replay: true,
      },
    },
    refusals: {
      400: `${SIG}, ${BAD_BODY}.`,
      403: '`ip_not_allowed`, `live_not_enabled`, `aml_blocked` or `forbidden_purpose`.',
      409: '`idempotent_conflict` (the Idempotency-Key was used with another body) or `storage_limit_reached` (the bound on the objects one merchant may hold).',
      422: '`route_not_configured` (no payout route for the merchant or currency) or `bank_not_supported`.',
    },
  },
  {
    method: 'get',
    path: '/payouts/{id}',
    operationId: 'getPayout',
    summary: 'Get a payout',
    section: '4.6',
    id: 'payout',
    ok: { 200: { description: 'The payout.', schema: 'Payout' } },
    refusals: {
      400: `${SIG}.`,
      403: '`ip_not_allowed` or `live_not_enabled`.',
      404: '`not_found`: no payout of this merchant has this id.',
    },
  },
  {
    method: 'get',
    path: '/banks/sbp',
    operationId: 'listSbpBanks',
    summary: 'The SBP bank directory',
    section: '4.7',
    ok: {
      200: {
        description: "The top 30 participants; `member_id` is a payout's `bank_id`.",
        schema: 'BankList',
      },
    },
    refusals: { 400: `${SIG}.`, 403: '`ip_not_allowed` or `live_not_enabled`.' },
  },
  {
    method: 'get',
    path: '/events',
    operationId: 'streamEvents',
    summary: 'The realtime event stream (Server-Sent Events)',
    section: '4.8',
    ok: {
      200: {
        description:
          'A long-lived stream: `: connected` first, then `event: <kind>` and `data: <SseEvent JSON>` per message, `: ping` every 25 s; `: replaced` when another stream opens with the same key.',
        stream: true,
      },
    },
    refusals: { 400: `${SIG}.`, 403: '`ip_not_allowed` or `live_not_enabled`.' },
  },
];

/**
 * Refusals every operation can answer, before its route runs (spec 5): the key, the allow-list, the rate limit,
 * live mode (400, the signature and the body cap, is in each operation's own list with its other 400s); and 431,
 * which the node adapter answers for any request whose headers node's parser refuses as too large
 * (src/reference/adapters/client-errors.ts), before any route.
 */
export const SHARED_REFUSALS: Record<number, string> = {
  401: '`unauthorized`: the Authorization header is missing or malformed, the key is unknown or revoked, or it is the admin token.',
  429: '`rate_limited`: the merchant rate limit is exceeded; `Retry-After` says when to retry, in seconds.',
  431: '`headers_too_large`: the request headers are larger than the server reads (node: 16 KiB in all).',
};
