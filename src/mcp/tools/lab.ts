// The go-live lab's tools (docs/go-live.md): webhook chaos, the readiness report and the assertions of the
// in-process reference's handle, each a call of `ref` (src/reference/service.ts). Reading ones are read-only and
// ungated; none moves money.
import { AssertionError } from '../../reference/assertions.js';
import type { OperationName } from '../../schemas/operations.js';
import { type JsonSchema, text } from '../json-schema.js';
import { defineTool, referenceOf, type Tool } from './define.js';

const OBJECT: JsonSchema = { type: 'object' };
const RATE: JsonSchema = { type: 'number', minimum: 0, maximum: 1 };
const OUTCOME: JsonSchema = {
  type: 'object',
  properties: {
    passed: { type: 'boolean' },
    message: { type: 'string', description: 'Why it failed, with the nearest entries seen.' },
    entry: OBJECT,
  },
  required: ['passed'],
};

/** An assertion's outcome as a tool answers it: a failed assertion is the answer, not a tool error. */
function outcome(run: () => unknown): Record<string, unknown> {
  try {
    const entry = run();
    return entry === undefined ? { passed: true } : { passed: true, entry };
  } catch (error) {
    if (error instanceof AssertionError) return { passed: false, message: error.message };
    throw error;
  }
}

/** The given arguments of a filter, without the ones left out. */
const given = (args: Record<string, unknown>, names: string[]) =>
  Object.fromEntries(names.filter((n) => args[n] !== undefined).map((n) => [n, args[n]]));

export const labTools: Tool[] = [
  defineTool({
    name: 'webhook_chaos_set',
    title: 'Turn on webhook chaos',
    description:
      'Reference mode: delivers webhooks as a real network might, so the webhook handler under test meets it: `duplicate` (0..1, an event delivered again after it was delivered), `reorder` (0..1, held until the next event of its endpoint), `delay` ({ min_seconds, max_seconds } on the service clock), `seed`. E.g. { "duplicate": 0.3, "reorder": 0.2, "seed": 42 }. See docs/go-live.md.',
    own: {
      duplicate: RATE,
      reorder: RATE,
      delay: {
        type: 'object',
        properties: {
          min_seconds: { type: 'number', minimum: 0 },
          max_seconds: { type: 'number', minimum: 0 },
        },
        required: ['min_seconds', 'max_seconds'],
        additionalProperties: false,
      },
      seed: { type: 'integer', minimum: 0, maximum: 4_294_967_295 },
    },
    output: OBJECT,
    idempotent: true,
    referenceOnly: true,
    run: async ({ own }, target) => ({ ...(await referenceOf(target).ref.control.setWebhookChaos(own)) }),
  }),
  defineTool({
    name: 'webhook_chaos_get',
    title: 'Read webhook chaos',
    description: 'Reference mode: the webhook chaos in force, or null when off.',
    own: {},
    output: { type: 'object', properties: { chaos: { type: ['object', 'null'] } }, required: ['chaos'] },
    readOnly: true,
    referenceOnly: true,
    run: async (_, target) => ({ chaos: await referenceOf(target).ref.control.getWebhookChaos() }),
  }),
  defineTool({
    name: 'webhook_chaos_clear',
    title: 'Turn off webhook chaos',
    description: 'Reference mode: webhooks are delivered once, in order, at once again.',
    own: {},
    output: { type: 'object', properties: { cleared: { type: 'boolean' } }, required: ['cleared'] },
    idempotent: true,
    referenceOnly: true,
    async run(_, target) {
      await referenceOf(target).ref.control.clearWebhookChaos();
      return { cleared: true };
    },
  }),
  defineTool({
    name: 'readiness_report',
    title: 'Readiness report',
    description:
      "Reference mode: what the integration's traffic exercised of what production will put to it (`items`, `score` in percent) and the dangerous patterns it shows (`findings`: duplicate-charge, duplicate-side-effect, early-retry, webhook-failures, no-idempotency-key), from the journal, the delivery log and the state.",
    own: { merchant: text('Only this merchant (default: every merchant).') },
    output: OBJECT,
    readOnly: true,
    referenceOnly: true,
    run: async ({ own }, target) => ({ ...referenceOf(target).ref.readiness({ merchant: own.merchant }) }),
  }),
  defineTool({
    name: 'requests_assert',
    title: 'Assert a request was sent',
    description:
      'Reference mode: whether the request journal holds a request matching the given fields (`refute: true`: that none does); a failure says why, with the nearest entries seen. E.g. { "operation": "payments.create", "status": 201 }.',
    own: {
      operation: text('The operation, e.g. payments.create.', { max: 64 }),
      method: text('GET or POST.', { max: 8 }),
      path: text("The request's path, as the journal shows it.", { max: 512 }),
      idempotency_key: text('The Idempotency-Key sent.', { max: 255 }),
      status: { type: 'integer', minimum: 100, maximum: 599 },
      error_code: text('The error code answered.', { max: 64 }),
      refute: { type: 'boolean', description: 'Assert that no request matches instead.' },
    },
    output: OUTCOME,
    readOnly: true,
    referenceOnly: true,
    run: async ({ own }, target) => {
      const { ref } = referenceOf(target);
      const filter = given(own, [
        'operation',
        'method',
        'path',
        'idempotency_key',
        'status',
        'error_code',
      ]) as {
        operation?: OperationName | undefined;
      };
      return outcome(() => (own.refute ? ref.refuteRequest(filter) : ref.assertRequest(filter)));
    },
  }),
  defineTool({
    name: 'webhooks_assert_delivered',
    title: 'Assert a webhook was delivered',
    description:
      'Reference mode: whether a delivery matching the given fields was acknowledged with a 2xx (`refute: true`: that none was). E.g. { "event": "payment.succeeded" }.',
    own: {
      event: text('The event name, e.g. payment.succeeded.', { max: 64 }),
      event_id: text('The event id (evt_...).', { max: 64 }),
      endpoint_id: text('The webhook endpoint id.', { max: 64 }),
      refute: { type: 'boolean', description: 'Assert that none was instead.' },
    },
    output: OUTCOME,
    readOnly: true,
    referenceOnly: true,
    run: async ({ own }, target) => {
      const { ref } = referenceOf(target);
      const filter = given(own, ['event', 'event_id', 'endpoint_id']);
      return outcome(() =>
        own.refute ? ref.refuteWebhookDelivered(filter) : ref.assertWebhookDelivered(filter),
      );
    },
  }),
];
