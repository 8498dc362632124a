// The public API's tools: what PspClient does, one tool per operation (spec section 4), against the reference or a
// service alike. The bodies are the API's own (openapi.json's components) and go through PspClient, which checks
// them before anything is sent.
import type { CreatePaymentInput, CreatePayoutInput, CreateRefundInput } from '../../schemas/inputs.js';
import { component, extend, text } from '../json-schema.js';
import { defineTool, idArg, idempotencyKeyArg, type Tool } from './define.js';

const KEY_OUT = { idempotency_key: { type: 'string', description: 'The Idempotency-Key the call carried.' } };
const withKey = (name: string) => extend(component(name), KEY_OUT, ['idempotency_key']);
const money = (amount: unknown) =>
  typeof amount === 'number' ? `${amount} minor units` : 'the whole remaining balance';

export const apiTools: Tool[] = [
  defineTool({
    name: 'payments_create',
    title: 'Create a payment',
    description:
      'Creates a payment (spec 4.1) and answers it with its payment_url, where the buyer pays. Carries an Idempotency-Key: pass the same `idempotency_key` to repeat the call without making a second payment.',
    own: { idempotency_key: idempotencyKeyArg() },
    body: 'CreatePaymentInput',
    output: withKey('CreatePaymentResponse'),
    creates: true,
    idempotent: true,
    async run({ own, body }, { client }) {
      const key = own.idempotency_key!;
      const created = await client.payments.create(body as unknown as CreatePaymentInput, {
        idempotencyKey: key,
      });
      return { ...created, idempotency_key: key };
    },
  }),
  defineTool({
    name: 'payments_get',
    title: 'Read a payment',
    description: 'Reads a payment with its current status, refunds and customer info (spec 4.2).',
    own: { id: idArg('payment') },
    required: ['id'],
    output: 'Payment',
    readOnly: true,
    run: async ({ own }, { client }) => ({ ...(await client.payments.get(own.id)) }),
  }),
  defineTool({
    name: 'payments_cancel',
    title: 'Cancel a pending payment',
    description:
      'Cancels a pending payment (spec 4.3; 409 not_pending otherwise). Runs only after a confirmation: the client is asked, or the call answers a confirmation_token for the `confirm` tool.',
    own: { id: idArg('payment') },
    required: ['id'],
    output: 'CancelPaymentResponse',
    moves: ({ own }) => `Cancel payment ${own.id}: the buyer can no longer pay it.`,
    run: async ({ own }, { client }) => ({ ...(await client.payments.cancel(own.id)) }),
  }),
  defineTool({
    name: 'payments_refund',
    title: 'Refund a payment',
    description:
      'Refunds a succeeded payment (spec 4.4): in part with `amount` (minor units, above 0), or everything not yet refunded with `full: true`; exactly one of the two. Runs only after a confirmation: the client is asked, or the call answers a confirmation_token for the `confirm` tool. Carries an Idempotency-Key, made when not given. Example: {"id": "<payment id>", "amount": 5000}',
    own: {
      id: idArg('payment'),
      full: {
        type: 'boolean',
        description:
          'true: refund the whole remaining balance. Say it explicitly; no amount and amount 0 refund nothing.',
      },
      idempotency_key: idempotencyKeyArg(),
    },
    required: ['id'],
    // The API reads a missing or 0 amount as "everything" (4.4): an agent's slip must not refund a whole payment.
    refine: ({ own, body }) => {
      const some = typeof body.amount === 'number' && body.amount > 0;
      if (own.full === true && body.amount !== undefined) return 'give either amount or full: true, not both';
      if (own.full !== true && !some)
        return 'amount must be above 0; to refund everything not yet refunded, pass full: true instead';
      return undefined;
    },
    body: 'CreateRefundInput',
    output: withKey('Refund'),
    creates: true,
    moves: ({ own, body }) =>
      `Refund ${money(body.amount)} of payment ${own.id} (Idempotency-Key ${own.idempotency_key}).`,
    async run({ own, body }, { client }) {
      const key = own.idempotency_key!;
      const refund = await client.payments.refund(own.id, body as CreateRefundInput, { idempotencyKey: key });
      return { ...refund, idempotency_key: key };
    },
  }),
  defineTool({
    name: 'payouts_create',
    title: 'Send an SBP payout',
    description:
      "Sends money to a phone through SBP (spec 4.5); `bank_id` is a bank's member_id from banks_list. Runs only after a confirmation: the client is asked, or the call answers a confirmation_token for the `confirm` tool. Carries an Idempotency-Key, made when not given.",
    own: { idempotency_key: idempotencyKeyArg() },
    body: 'CreatePayoutInput',
    output: withKey('CreatePayoutResponse'),
    creates: true,
    moves: ({ own, body }) =>
      `Pay out ${money(body.amount)} to ${String(body.phone)} at bank ${String(body.bank_id)} (Idempotency-Key ${own.idempotency_key}).`,
    async run({ own, body }, { client }) {
      const key = own.idempotency_key!;
      const created = await client.payouts.create(body as unknown as CreatePayoutInput, {
        idempotencyKey: key,
      });
      return { ...created, idempotency_key: key };
    },
  }),
  defineTool({
    name: 'payouts_get',
    title: 'Read a payout',
    description: 'Reads a payout with its current status (spec 4.6).',
    own: { id: idArg('payout') },
    required: ['id'],
    output: 'Payout',
    readOnly: true,
    run: async ({ own }, { client }) => ({ ...(await client.payouts.get(own.id)) }),
  }),
  defineTool({
    name: 'banks_list',
    title: 'List SBP banks',
    description: "Lists the SBP participants (spec 4.7); a bank's member_id is a payout's bank_id.",
    own: {},
    output: 'BankList',
    readOnly: true,
    run: async (_, { client }) => ({ ...(await client.banks.list()) }),
  }),
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
