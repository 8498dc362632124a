/**
 * The operations of spec section 4 as the reference answers them, in the document's words: for each row of the
 * table of operations (src/schemas/operations.ts: method, path, body), its summary, its success answers and every
 * status it can answer, with the error codes behind each. The statuses are the reference's, read from its refusals
 * (src/reference/http: auth.ts, body.ts, context.ts; src/reference/domain: payments, refunds, payouts, idempotency)
 * and checked against every answer of the reference's own HTTP tests (test/openapi/answer-check.ts), so a status
 * the reference starts to answer and this table does not list fails a test.
 */

import { CODE, type ErrorCode } from '../schemas/errors.js';
import type { OperationName } from '../schemas/operations.js';

const NO_PAYMENT = 'no payment of this merchant has this id';

/** One success answer of an operation: JSON, of the row's `answer` schema, or the SSE stream. */
export interface Answer {
  description: string;
  /** `text/event-stream` instead of JSON. */
  stream?: true | undefined;
  /** A 200 that replays an earlier creation carries `Idempotent-Replayed: true`. */
  replay?: true | undefined;
}

/**
 * What the document says of an operation beyond its row in the table of operations (src/schemas/operations.ts,
 * which gives its method, path, `{id}`, body and Idempotency-Key).
 */
export interface OperationDoc {
  operationId: string;
  summary: string;
  /** Spec section, e.g. `4.1`. */
  section: string;
  /** Success answers by status. */
  ok: Record<number, Answer>;
  /**
   * Refusals particular to this operation: each code, with what causes it where the code does not say; document.ts
   * files them under their statuses from the table of codes (src/schemas/errors.ts) and adds the shared ones.
   */
  refusals: readonly Refusal[];
}

/** A code an operation can answer, alone or with its cause (`[code, 'why']`). */
export type Refusal = ErrorCode | readonly [ErrorCode, string];

// Section 5's refusals every operation can answer before its route runs: the signature, the key's access, and a
// body over 1 MiB (read on every request, as the signature covers it).
const SIG: readonly Refusal[] = [
  [CODE.signature_required, 'the terminal requires signatures and none was sent'],
  CODE.invalid_signature,
];
const TOO_LARGE = 'a body over 1 MiB';
// A GET declares no body: one that does is refused unread, not checked against the empty body's signature.
const GET_BODY: Refusal = [CODE.bad_request, 'a body: a GET takes none'];
// Only an operation whose body is read can find the server too busy reading others' (the node adapter's
// `maxBodyBytesInFlight`); a GET's is refused unread.
const BUSY: Refusal = [
  CODE.service_unavailable,
  'too many request bodies are being read at once; nothing was done, retry after `Retry-After` seconds',
];
const ACCESS: readonly Refusal[] = [CODE.ip_not_allowed, CODE.live_not_enabled];
// What an operation that moves money adds to ACCESS: the merchant's block.
const MONEY: readonly Refusal[] = [...ACCESS, CODE.aml_blocked, CODE.forbidden_purpose];
const BAD_BODY: Refusal = [
  CODE.bad_request,
  `${TOO_LARGE}, a body that is not JSON in UTF-8 or not valid JSON, a field that breaks its rule or is unknown, a bad Idempotency-Key`,
];
const STORAGE: Refusal = [CODE.storage_limit_reached, 'the bound on the objects one merchant may hold'];
const REPLAY: Refusal = [CODE.idempotent_conflict, 'the Idempotency-Key was used with another body'];

/**
 * The document's words for every operation of the table (4.9, the merchant's webhook receiver, is in the document's
 * `webhooks`); a row of the table without its words here fails to compile.
 */
export const OPERATION_DOCS: Record<OperationName, OperationDoc> = {
  'payments.create': {
    operationId: 'createPayment',
    summary: 'Create a payment',
    section: '4.1',
    ok: {
      201: { description: 'The payment was created.' },
      200: {
        description:
          'A replay of the same Idempotency-Key with the same body: the earlier answer, `idempotent: true`.',
        replay: true,
      },
    },
    refusals: [...SIG, BAD_BODY, ...MONEY, REPLAY, STORAGE, BUSY],
  },
  'payments.get': {
    operationId: 'getPayment',
    summary: 'Get a payment',
    section: '4.2',
    ok: {
      200: {
        description: 'The payment with its current status, refunds and customer info.',
      },
    },
    refusals: [...SIG, GET_BODY, ...ACCESS, [CODE.not_found, NO_PAYMENT]],
  },
  'payments.cancel': {
    operationId: 'cancelPayment',
    summary: 'Cancel a pending payment',
    section: '4.3',
    ok: {
      200: {
        description: 'The payment is cancelled; webhook `payment.cancelled` follows.',
      },
    },
    refusals: [
      ...SIG,
      [CODE.bad_request, `${TOO_LARGE}, a body other than none or \`{}\`: this operation takes none`],
      ...ACCESS,
      [CODE.not_found, NO_PAYMENT],
      [CODE.not_pending, 'the payment is not pending'],
      BUSY,
    ],
  },
  'payments.refund': {
    operationId: 'refundPayment',
    summary: 'Refund a payment, in full or in part',
    section: '4.4',
    ok: {
      201: { description: 'The refund was made; webhook `payment.refunded` follows.' },
      200: {
        description: 'A replay of the same Idempotency-Key with the same body.',
        replay: true,
      },
    },
    refusals: [
      ...SIG,
      BAD_BODY,
      ...MONEY,
      [CODE.not_found, NO_PAYMENT],
      [CODE.not_succeeded, 'the payment is not succeeded'],
      CODE.already_refunded,
      [CODE.refund_limit_reached, 'the 100th refund must return the whole balance'],
      CODE.idempotent_conflict,
      STORAGE,
      [CODE.amount_exceeds_balance, 'the amount is larger than what is left to refund'],
      BUSY,
    ],
  },
  'payouts.create': {
    operationId: 'createPayout',
    summary: 'Create an SBP payout',
    section: '4.5',
    ok: {
      201: { description: 'The payout was created.' },
      200: {
        description: 'A replay of the same Idempotency-Key with the same body.',
        replay: true,
      },
    },
    refusals: [
      ...SIG,
      BAD_BODY,
      ...MONEY,
      REPLAY,
      STORAGE,
      [CODE.route_not_configured, 'no payout route for the merchant or currency'],
      CODE.bank_not_supported,
      BUSY,
    ],
  },
  'payouts.get': {
    operationId: 'getPayout',
    summary: 'Get a payout',
    section: '4.6',
    ok: { 200: { description: 'The payout.' } },
    refusals: [...SIG, GET_BODY, ...ACCESS, [CODE.not_found, 'no payout of this merchant has this id']],
  },
  'banks.list': {
    operationId: 'listSbpBanks',
    summary: 'The SBP bank directory',
    section: '4.7',
    ok: {
      200: {
        description: "The top 30 participants; `member_id` is a payout's `bank_id`.",
      },
    },
    refusals: [...SIG, GET_BODY, ...ACCESS],
  },
  'events.stream': {
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
    refusals: [...SIG, GET_BODY, ...ACCESS],
  },
};

/**
 * Refusals every operation can answer, before its route runs (spec 5): the key, the allow-list, the rate limit,
 * live mode (400, the signature and the body cap, is in each operation's own list with its other 400s); and 431,
 * which the node adapter answers for any request whose headers node's parser refuses as too large
 * (src/reference/adapters/client-errors.ts), before any route.
 */
export const SHARED_REFUSALS: readonly Refusal[] = [
  [
    CODE.unauthorized,
    'the Authorization header is missing or malformed, the key is unknown or revoked, or it is the admin token',
  ],
  [CODE.rate_limited, 'the merchant rate limit is exceeded; `Retry-After` says when to retry, in seconds'],
  [CODE.headers_too_large, 'the request headers are larger than the server reads (node: 16 KiB in all)'],
];
