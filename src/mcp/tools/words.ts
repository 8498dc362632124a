// The words of psp-mcp's API tools beyond their rows (src/mcp/tools/api.ts makes the tools): what an agent reads,
// the sentence a person confirms, the refund's guard, and the line of docs/mcp.md's table. An operation without
// words here takes the API document's (`wordsOf`). No import reaches openapi.json, so the build that writes that
// file can read these words.
import type { MethodName } from '../../client/method.js';
import { PspValidationError } from '../../client/base-errors.js';
import { OPERATION_DOCS } from '../../openapi/operations.js';
import { CODE } from '../../schemas/errors.js';
import { OPERATIONS, type OperationName, type OperationRow } from '../../schemas/operations.js';
import { ToolRefusal } from '../errors.js';
import type { JsonSchema } from '../json-schema.js';
import type { Target } from '../target.js';
import type { Args } from './define.js';

const money = (amount: unknown) =>
  typeof amount === 'number' ? `${amount} minor units` : 'the whole remaining balance';
const CONFIRMED =
  'Runs only after a confirmation: the client is asked, or the call answers a confirmation_token for the `confirm` tool.';

/** What a row's tool says beyond its row. */
export interface ToolWords {
  /** What an agent reads in tools/list. */
  description: string;
  /**
   * What the tool does, for docs/mcp.md's table of tools, which `npm run build:openapi` writes; "asks first" is added
   * there for a tool with `moves`. Default: the document's summary and section.
   */
  guide?: string | undefined;
  /** The sentence a person confirms before the call runs; a tool without one runs unasked. */
  moves?: ((call: { own: Args; body: Record<string, unknown> }) => string) | undefined;
  /**
   * An agent's guard beyond the API's rules: arguments of the tool's own and a rule across them. Only the refund
   * has one (the API reads a missing amount as "everything": an agent must say so).
   */
  guard?:
    | {
        own: Record<string, JsonSchema>;
        refine: (call: { own: Args; body: Record<string, unknown> }) => string | undefined;
        /** Checked against the service before anyone is asked (see `Tool.preflight`). */
        preflight: (call: { own: Args; body: Record<string, unknown> }, target: Target) => Promise<number>;
      }
    | undefined;
}

/** Better words than the document's for the operations that have them (the event stream has the streams' tools). */
export const WORDS: Partial<Record<MethodName, ToolWords>> = {
  'payments.create': {
    guide: 'creates a payment (spec 4.1): the answer has `payment_url` and the `idempotency_key`',
    description:
      'Creates a payment (spec 4.1) and answers it with its payment_url, where the buyer pays. Carries an Idempotency-Key: pass the same `idempotency_key` to repeat the call without making a second payment.',
  },
  'payments.get': {
    guide: 'a payment with its status, refunds and customer info (4.2)',
    description: 'Reads a payment with its current status, refunds and customer info (spec 4.2).',
  },
  'payments.cancel': {
    guide: 'cancels a pending payment (4.3)',
    description: `Cancels a pending payment (spec 4.3; 409 not_pending otherwise). ${CONFIRMED}`,
    moves: ({ own }) => `Cancel payment ${own.id}: the buyer can no longer pay it.`,
  },
  'payments.refund': {
    guide:
      'refunds a succeeded payment (4.4), in part (`amount`, above 0) or whole (`full: true`; no amount and `amount: 0` are refused, never read as everything)',
    description: `Refunds a succeeded payment (spec 4.4): in part with \`amount\` (minor units, above 0), or everything not yet refunded with \`full: true\`; exactly one of the two. ${CONFIRMED} Carries an Idempotency-Key, made when not given. Example: {"id": "<payment id>", "amount": 5000}`,
    moves: ({ own, body }) =>
      `Refund ${money(body.amount)} of payment ${own.id} (Idempotency-Key ${own.idempotency_key}).`,
    guard: {
      own: {
        full: {
          type: 'boolean',
          description:
            'true: refund the whole remaining balance. Say it explicitly; no amount and amount 0 refund nothing.',
        },
      },
      // The API reads a missing or 0 amount as "everything" (4.4): an agent's slip must not refund a whole payment.
      refine: ({ own, body }) => {
        const some = typeof body.amount === 'number' && body.amount > 0;
        if (own.full === true && body.amount !== undefined)
          return 'give either amount or full: true, not both';
        if (own.full !== true && !some)
          return 'amount must be above 0; to refund everything not yet refunded, pass full: true instead';
        return undefined;
      },
      // A refund above what is left is the API's 422 anyway: said before a person is asked to approve it.
      async preflight({ own, body }, { client }) {
        const payment = await client.payments.get(own.id).catch((error: unknown) => {
          // An id that is no UUID names no payment: the API's own answer to it, before anyone is asked.
          if (error instanceof PspValidationError)
            throw new ToolRefusal(
              CODE.not_found,
              404,
              `No payment with id ${JSON.stringify(String(own.id).slice(0, 64))}.`,
            );
          throw error;
        });
        const left = payment.amount - payment.amount_refunded;
        const amount = own.full === true ? left : (body.amount as number);
        if (amount > left)
          throw new ToolRefusal(
            CODE.amount_exceeds_balance,
            422,
            `Nothing was done, nobody was asked: a refund of ${amount} minor units is above what is left of payment ${own.id} (${left}).`,
          );
        return amount;
      },
    },
  },
  'payouts.create': {
    guide: 'an SBP payout to a phone (4.5)',
    description: `Sends money to a phone through SBP (spec 4.5); \`bank_id\` is a bank's member_id from banks_list. ${CONFIRMED} Carries an Idempotency-Key, made when not given.`,
    moves: ({ own, body }) =>
      `Pay out ${money(body.amount)} to ${String(body.phone)} at bank ${String(body.bank_id)} (Idempotency-Key ${own.idempotency_key}).`,
  },
  'payouts.get': {
    guide: 'a payout (4.6)',
    description: 'Reads a payout with its current status (spec 4.6).',
  },
  'banks.list': {
    guide: "the SBP participants (4.7); `member_id` is a payout's `bank_id`",
    description: "Lists the SBP participants (spec 4.7); a bank's member_id is a payout's bank_id.",
  },
};

/**
 * The words of an operation with none in {@link WORDS}: the document's summary and success answer, and, for a POST
 * (it may change state or move money), a confirmation naming the call, which a person reads before it runs.
 */
export function wordsOf(name: MethodName, words: Partial<Record<MethodName, ToolWords>> = WORDS): ToolWords {
  const given = words[name];
  if (given) return given;
  const row: OperationRow = OPERATIONS[name];
  const doc = OPERATION_DOCS[name];
  const ok = Object.values(doc.ok)[0]?.description ?? '';
  const key = row.idempotent ? ' Carries an Idempotency-Key, made when not given.' : '';
  if (row.method === 'GET') return { description: `${doc.summary} (spec ${doc.section}). ${ok}` };
  return {
    description: `${doc.summary} (spec ${doc.section}). ${ok} ${CONFIRMED}${key}`,
    moves: ({ own, body }) =>
      `${doc.summary}${row.id ? `: ${row.id} ${own.id}` : ''}${row.input ? `, with ${JSON.stringify(body)}` : ''}${row.idempotent ? ` (Idempotency-Key ${own.idempotency_key})` : ''}.`,
  };
}

/** The operations with a tool of their own: every one that answers JSON (the event stream has the streams' tools). */
export const TOOL_OPERATIONS: readonly MethodName[] = (Object.keys(OPERATIONS) as OperationName[]).filter(
  (name): name is MethodName => 'answer' in OPERATIONS[name],
);

/**
 * docs/mcp.md's table of the API's tools, one row per operation that answers JSON, in the table's order; a tool that
 * asks a person first says so, from its words, so the page cannot drift from what the tool does.
 */
export function toolsTable(): string {
  const rows = TOOL_OPERATIONS.map((name) => {
    const words = wordsOf(name);
    const doc = OPERATION_DOCS[name];
    const what = words.guide ?? `${doc.summary} (${doc.section})`;
    return `| \`${name.replace('.', '_')}\` | ${what}${words.moves ? '; **asks first**' : ''} |`;
  });
  return ['| Tool | What it does |', '|---|---|', ...rows].join('\n');
}
