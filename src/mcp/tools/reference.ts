// The in-process reference's own tools: the buyer, the clock, triggers, the delivery log, faults and state, each
// a call of `ref.control` (src/reference/control.ts) or of the buyer's buttons (src/reference/handle.ts).
import { runTrigger } from '../../reference/cli/cli-trigger.js';
import { WEBHOOK_EVENTS } from '../../schemas/names.js';
import { ToolRefusal } from '../errors.js';
import { integer, type JsonSchema, text } from '../json-schema.js';
import { defineTool, idArg, referenceOf, type Tool } from './define.js';
import { CODE } from '../../schemas/errors.js';

const OBJECT: JsonSchema = { type: 'object' };
const MAX_SNAPSHOTS = 16;

const DELIVERIES: JsonSchema = {
  type: 'object',
  properties: {
    endpoint_id: { type: 'string' },
    items: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          event_id: { type: 'string' },
          event: { type: 'string' },
          attempt: { type: 'integer' },
          status_code: { type: ['integer', 'null'] },
          error: { type: ['string', 'null'] },
          at: { type: 'string' },
          next_attempt_at: { type: ['string', 'null'] },
        },
        required: ['event_id', 'event', 'attempt', 'status_code', 'error', 'at', 'next_attempt_at'],
      },
    },
  },
  required: ['endpoint_id', 'items'],
};

const buyer = (action: 'pay' | 'decline') =>
  defineTool({
    name: `buyer_${action}`,
    title: action === 'pay' ? 'Pay as the buyer' : 'Decline as the buyer',
    description:
      action === 'pay'
        ? "Reference mode: the buyer presses Pay on the payment's page; the payment goes to the outcome its amount plans (docs/testing.md) with the same webhooks and events as from a browser."
        : 'Reference mode: the buyer presses Decline; the payment fails with declined_by_buyer.',
    own: { payment_id: idArg('payment') },
    required: ['payment_id'],
    output: 'Payment',
    referenceOnly: true,
    run: async ({ own }, target) => ({ ...(await referenceOf(target).ref[action](own.payment_id)) }),
  });

export const referenceTools: Tool[] = [
  buyer('pay'),
  buyer('decline'),
  defineTool({
    name: 'clock_advance',
    title: 'Advance the clock',
    description:
      "Reference mode: moves the reference's manual clock forward; what falls due fires in order (payment expiry, payout outcomes, webhook retries). psp-mcp starts the reference with a manual clock unless --clock real.",
    own: {
      seconds: {
        type: 'number',
        exclusiveMinimum: 0,
        maximum: 31_536_000,
        description: 'How far, in seconds.',
      },
    },
    required: ['seconds'],
    output: { type: 'object', properties: { now: { type: 'string' } }, required: ['now'] },
    referenceOnly: true,
    run: async ({ own }, target) => ({
      ...(await referenceOf(target).ref.control.advanceClock(own.seconds)),
    }),
  }),
  defineTool({
    name: 'webhooks_trigger',
    title: 'Trigger a webhook event',
    description:
      'Reference mode: makes a new payment or payout and moves it so that the reference emits `event` (as `psp-reference trigger`), to every webhook endpoint. Creates its own objects only, but a refund or payout event moves (test) money, so it runs after a confirmation like the other money-moving tools.',
    own: {
      event: { type: 'string', enum: [...WEBHOOK_EVENTS], description: 'The webhook event (spec 6.1).' },
      amount: integer('Minor units. Default 10000.', { min: 1 }),
    },
    required: ['event'],
    output: {
      type: 'object',
      properties: {
        event: { type: 'string' },
        objects: {
          type: 'array',
          items: {
            type: 'object',
            properties: { type: { type: 'string' }, data: OBJECT },
            required: ['type', 'data'],
          },
        },
      },
      required: ['event', 'objects'],
    },
    referenceOnly: true,
    moves: ({ own }) => `Create a new object and move it so that the reference emits ${own.event}.`,
    async run({ own }, target) {
      const { ref } = referenceOf(target);
      const result = await runTrigger({
        event: own.event,
        amount: own.amount ?? 10_000,
        baseUrl: ref.base_url,
        adminToken: ref.admin_token,
        apiKey: ref.api_key,
        json: true,
      });
      return { ...result };
    },
  }),
  defineTool({
    name: 'deliveries_list',
    title: 'List webhook deliveries',
    description:
      "Reference mode: the delivery attempts of a webhook endpoint, oldest first (status code, error, next retry). Default: psp-mcp's own endpoint, which receives every event.",
    own: { endpoint_id: idArg('webhook endpoint') },
    output: DELIVERIES,
    readOnly: true,
    referenceOnly: true,
    async run({ own }, target) {
      const side = referenceOf(target);
      const id = own.endpoint_id ?? side.inboxEndpointId;
      return { endpoint_id: id, ...(await side.ref.control.listDeliveries(id)) };
    },
  }),
  defineTool({
    name: 'webhooks_resend',
    title: 'Resend a webhook event',
    description:
      "Reference mode: sends an event again to the shop's endpoints, as the cabinet's resend does (spec 6.1); the event id stays the same.",
    own: { event_id: text('The evt_ id.') },
    required: ['event_id'],
    output: { type: 'object', properties: { resent: { type: 'string' } }, required: ['resent'] },
    referenceOnly: true,
    async run({ own }, target) {
      await referenceOf(target).ref.control.resendEvent(own.event_id);
      return { resent: own.event_id };
    },
  }),
  defineTool({
    name: 'faults_add',
    title: 'Add a fault rule',
    description:
      'Reference mode: a fault played on the public API (the network in front of the service): `rule` as POST /_simulator/faults takes it (`kind` error, reset, latency or timeout). See the resource docs/reference.md, "Faults". Example: {"rule": {"kind": "error", "status": 503, "probability": 1, "match": {"method": "POST"}}}',
    own: { rule: { type: 'object', description: 'The fault rule.' } },
    required: ['rule'],
    output: OBJECT,
    referenceOnly: true,
    run: async ({ own }, target) => ({
      ...(await referenceOf(target).ref.control.addFault(own.rule as never)),
    }),
  }),
  defineTool({
    name: 'faults_list',
    title: 'List fault rules',
    description: 'Reference mode: the fault rules in the order added, with how often each fired (`hits`).',
    own: {},
    output: { type: 'object', properties: { items: { type: 'array', items: OBJECT } }, required: ['items'] },
    readOnly: true,
    referenceOnly: true,
    run: async (_, target) => ({ ...(await referenceOf(target).ref.control.listFaults()) }),
  }),
  defineTool({
    name: 'faults_clear',
    title: 'Clear fault rules',
    description: 'Reference mode: removes every fault rule.',
    own: {},
    output: { type: 'object', properties: { cleared: { type: 'integer' } }, required: ['cleared'] },
    idempotent: true,
    referenceOnly: true,
    async run(_, target) {
      const { control } = referenceOf(target).ref;
      const { items } = await control.listFaults();
      await control.clearFaults();
      return { cleared: items.length };
    },
  }),
  defineTool({
    name: 'state_snapshot',
    title: 'Snapshot the state',
    description:
      "Reference mode: keeps the whole state (payments, payouts, endpoints, clock...) under `name`, in psp-mcp's memory (it holds keys and secrets, so it is never shown). At most 16 are kept.",
    own: { name: text('A name to restore it by.', { max: 64 }) },
    required: ['name'],
    output: {
      type: 'object',
      properties: { name: { type: 'string' }, stats: OBJECT },
      required: ['name', 'stats'],
    },
    referenceOnly: true,
    async run({ own }, target) {
      const side = referenceOf(target);
      side.snapshots.delete(own.name);
      side.snapshots.set(own.name, await side.ref.control.snapshot());
      if (side.snapshots.size > MAX_SNAPSHOTS)
        side.snapshots.delete(side.snapshots.keys().next().value as string);
      return { name: own.name, stats: { ...side.ref.stats() } };
    },
  }),
  defineTool({
    name: 'state_restore',
    title: 'Restore a snapshot',
    description:
      'Reference mode: puts the state back as `state_snapshot` kept it under `name`; what happened since is gone.',
    own: { name: text("The snapshot's name.", { max: 64 }) },
    required: ['name'],
    output: {
      type: 'object',
      properties: { name: { type: 'string' }, stats: OBJECT },
      required: ['name', 'stats'],
    },
    destructive: true,
    idempotent: true,
    referenceOnly: true,
    async run({ own }, target) {
      const side = referenceOf(target);
      const doc = side.snapshots.get(own.name);
      if (doc === undefined) {
        const names = [...side.snapshots.keys()].map((n) => JSON.stringify(n)).join(', ') || 'none';
        throw new ToolRefusal(
          CODE.not_found,
          404,
          `No snapshot named ${JSON.stringify(own.name)} (kept: ${names}).`,
        );
      }
      await side.ref.control.restore(doc);
      return { name: own.name, stats: { ...side.ref.stats() } };
    },
  }),
];
