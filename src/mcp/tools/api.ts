// The public API's tools: what PspClient does, one tool per operation (spec section 4), against the reference or a
// service alike. Each is made from its row of the table of operations (src/schemas/operations.ts): its name, the id
// argument, the body (openapi.json's component, checked by PspClient before anything is sent), the answer,
// read-only for a GET, the Idempotency-Key of a creation; its title is the API description's summary. Only words are
// written here, where the document's are not enough for an agent: the description it reads, and for a call that needs
// a person's confirmation, the sentence that person is shown. An operation added to the table gets its tool with no
// line here: its description is the document's summary and success answer, and a POST asks a person first.
import { OPERATION_DOCS } from '../../openapi/operations.js';
import type { MethodName } from '../../client/method.js';
import { OPERATIONS, type OperationName, type OperationRow } from '../../schemas/operations.js';
import type { PspClient } from '../../psp-client.js';
import { component, extend, type JsonSchema, text } from '../json-schema.js';
import { PspValidationError } from '../../client/base-errors.js';
import { CODE } from '../../schemas/errors.js';
import { ToolRefusal } from '../errors.js';
import type { Target } from '../target.js';
import { type Args, defineTool, idArg, idempotencyKeyArg, type Tool } from './define.js';

const KEY_OUT = { idempotency_key: { type: 'string', description: 'The Idempotency-Key the call carried.' } };
const withKey = (name: string) => extend(component(name), KEY_OUT, ['idempotency_key']);
const money = (amount: unknown) =>
  typeof amount === 'number' ? `${amount} minor units` : 'the whole remaining balance';
const CONFIRMED =
  'Runs only after a confirmation: the client is asked, or the call answers a confirmation_token for the `confirm` tool.';

/** What a row's tool says beyond its row. */
export interface ToolWords {
  /** What an agent reads in tools/list. */
  description: string;
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
const WORDS: Partial<Record<MethodName, ToolWords>> = {
  'payments.create': {
    description:
      'Creates a payment (spec 4.1) and answers it with its payment_url, where the buyer pays. Carries an Idempotency-Key: pass the same `idempotency_key` to repeat the call without making a second payment.',
  },
  'payments.get': {
    description: 'Reads a payment with its current status, refunds and customer info (spec 4.2).',
  },
  'payments.cancel': {
    description: `Cancels a pending payment (spec 4.3; 409 not_pending otherwise). ${CONFIRMED}`,
    moves: ({ own }) => `Cancel payment ${own.id}: the buyer can no longer pay it.`,
  },
  'payments.refund': {
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
    description: `Sends money to a phone through SBP (spec 4.5); \`bank_id\` is a bank's member_id from banks_list. ${CONFIRMED} Carries an Idempotency-Key, made when not given.`,
    moves: ({ own, body }) =>
      `Pay out ${money(body.amount)} to ${String(body.phone)} at bank ${String(body.bank_id)} (Idempotency-Key ${own.idempotency_key}).`,
  },
  'payouts.get': { description: 'Reads a payout with its current status (spec 4.6).' },
  'banks.list': {
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

/** Calls operation `name` through PspClient's own method for it (`client.payments.refund(id, body, options)`). */
function call(
  client: PspClient,
  name: MethodName,
  row: OperationRow,
  { own, body }: { own: Args; body: object },
) {
  const [resource, method] = name.split('.') as [string, string];
  const fn = (client as unknown as Record<string, Record<string, (...args: unknown[]) => Promise<object>>>)[
    resource
  ]![method]!;
  const args = [
    ...(row.id ? [own.id] : []),
    ...(row.input ? [body] : []),
    ...(row.idempotent ? [{ idempotencyKey: own.idempotency_key }] : []),
  ];
  return fn.apply((client as unknown as Record<string, object>)[resource], args);
}

/** The tool of one operation, made from its row and its words. */
export function operationTool(name: MethodName, words: ToolWords): Tool {
  const row: OperationRow = OPERATIONS[name];
  const answer = row.answer!;
  return defineTool({
    name: name.replace('.', '_'),
    title: OPERATION_DOCS[name].summary,
    description: words.description,
    own: {
      ...(row.id ? { id: idArg(row.id) } : {}),
      ...words.guard?.own,
      ...(row.idempotent ? { idempotency_key: idempotencyKeyArg() } : {}),
    },
    required: row.id ? ['id'] : [],
    ...(row.input ? { body: row.input } : {}),
    output: row.idempotent ? withKey(answer) : answer,
    readOnly: row.method === 'GET',
    // Keyed: repeating it with the same idempotency_key has no further effect.
    idempotent: row.method === 'GET' || row.idempotent === true,
    creates: row.idempotent === true,
    moves: words.moves,
    refine: words.guard?.refine,
    preflight: words.guard?.preflight,
    async run(checked, { client }) {
      const answered = await call(client, name, row, checked);
      return row.idempotent ? { ...answered, idempotency_key: checked.own.idempotency_key } : { ...answered };
    },
  });
}

export const apiTools: Tool[] = [
  ...(Object.keys(OPERATIONS) as OperationName[])
    .filter((name): name is MethodName => 'answer' in OPERATIONS[name])
    .map((name) => operationTool(name, wordsOf(name))),
  defineTool({
    name: 'banks_find',
    title: 'Find SBP banks by name',
    description: 'The SBP participants whose name (Russian or English) contains `name`, case-insensitive.',
    own: { name: text("Part of the bank's name.", { max: 100 }) },
    required: ['name'],
    output: 'BankList',
    readOnly: true,
    async run({ own }, { client }) {
      const needle = own.name.toLocaleLowerCase();
      const { items } = await client.banks.list();
      return {
        items: items.filter((b) => `${b.name}\n${b.name_en}`.toLocaleLowerCase().includes(needle)),
      };
    },
  }),
];
