// What the service sends back: the event stream (spec 4.8) as "events since a cursor", and webhooks (spec 6.1):
// verifying one as a receiver does, and in reference mode the inbox of what was delivered.
import { verifyWebhook } from '../../webhooks/verify.js';
import { ToolRefusal } from '../errors.js';
import { component, integer, type JsonSchema, seconds, text } from '../json-schema.js';
import { defineTool, referenceOf, type Tool } from './define.js';

const cursorArg = (): JsonSchema => integer('The `cursor` of the previous answer. Default 0: all kept.');

const EVENTS_OUT: JsonSchema = {
  type: 'object',
  properties: {
    events: {
      type: 'array',
      items: {
        ...component('SseEvent'),
        properties: { ...(component('SseEvent').properties as object), seq: { type: 'integer' } },
      },
    },
    cursor: { type: 'integer', description: 'Pass as `cursor` next time.' },
    dropped: {
      type: 'boolean',
      description: 'Events after the cursor were dropped: read the objects again.',
    },
    stream: { type: 'string', enum: ['open', 'replaced', 'closed'] },
  },
  required: ['events', 'cursor', 'dropped', 'stream'],
};

const VERIFIED: JsonSchema = {
  type: 'object',
  properties: {
    valid: { const: true },
    id: { type: 'string' },
    event: { type: 'string' },
    created_at: { type: 'string' },
    data: { type: 'object' },
  },
  required: ['valid', 'id', 'event', 'data'],
};

const INBOX_OUT: JsonSchema = {
  type: 'object',
  properties: {
    webhooks: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          seq: { type: 'integer' },
          received_at: { type: 'string', format: 'date-time' },
          headers: { type: 'object', additionalProperties: { type: 'string' } },
          body: { type: 'string' },
        },
        required: ['seq', 'received_at', 'headers', 'body'],
      },
    },
    cursor: { type: 'integer' },
  },
  required: ['webhooks', 'cursor'],
};

export const streamTools: Tool[] = [
  defineTool({
    name: 'stream_events_since',
    title: 'Read the event stream',
    description:
      'The realtime events (spec 6.2: payment.created, payment.status_changed, payout.*, refund.created) received after `cursor` (0 or absent: all kept). psp-mcp keeps the stream open and numbers its events; pass the answered `cursor` next time. `wait_seconds` waits for the first new one. Against a service the first call opens the stream, which replaces another stream on the same key (one per key).',
    own: {
      cursor: cursorArg(),
      wait_seconds: seconds('Wait up to this long for a new event. Default 0.', 30),
      limit: integer('At most this many events. Default 100.', { min: 1, max: 100 }),
    },
    output: EVENTS_OUT,
    readOnly: true,
    async run({ own }, target) {
      target.events.open(target.client);
      const page = await target.events.since(
        own.cursor ?? 0,
        (own.wait_seconds ?? 0) * 1000,
        own.limit ?? 100,
      );
      return { ...page };
    },
  }),
  defineTool({
    name: 'webhooks_verify',
    title: 'Verify a webhook',
    description:
      "Checks a webhook as a receiver must (spec 6.1, verifyWebhook of psp-sdk/webhooks): the X-PSP-Signature over the raw body with the endpoint's secret, and the timestamp. A refusal names the reason (no_matching_signature, timestamp_outside_tolerance...) and what to fix. The secret stays in psp-mcp: the reference's endpoints', or PSP_WEBHOOK_SECRET for a service.",
    own: {
      body: text('The raw body exactly as received.', { min: 0, max: 1_048_576 }),
      headers: {
        type: 'object',
        additionalProperties: { type: 'string' },
        description: 'The request headers (any case): X-PSP-Signature, X-PSP-Timestamp.',
      },
      endpoint_id: text("Reference mode: check with this endpoint's secret only. Default: any of them."),
      require_v2: { type: 'boolean', description: 'Refuse legacy sha256= (v1) signatures. Default false.' },
    },
    required: ['body', 'headers'],
    output: VERIFIED,
    readOnly: true,
    async run({ own }, target) {
      const secrets = target.webhookSecrets(own.endpoint_id);
      if (!secrets.length) {
        throw new ToolRefusal(
          'missing_secret',
          null,
          "psp-mcp holds no webhook secret to verify with: start it with PSP_WEBHOOK_SECRET set to the endpoint's whs_ secret (several: comma-separated).",
        );
      }
      // The reference signs on its own clock, which a manual clock moves ahead of this machine's.
      const now = target.reference?.ref.clock.now() ?? Date.now();
      const event = verifyWebhook(own.body, own.headers, secrets, {
        now,
        requireV2: own.require_v2 ?? false,
      });
      return { valid: true, ...(event as unknown as Record<string, unknown>) };
    },
  }),
  defineTool({
    name: 'webhooks_inbox',
    title: 'Webhooks psp-mcp received',
    description:
      "Reference mode: the webhooks the reference delivered to psp-mcp's own endpoint (made at start, every event), after `cursor`: headers and raw body, ready for webhooks_verify. The newest 100 are kept.",
    own: {
      cursor: cursorArg(),
      wait_seconds: seconds('Wait up to this long for a new webhook. Default 0.', 30),
    },
    output: INBOX_OUT,
    readOnly: true,
    referenceOnly: true,
    async run({ own }, target) {
      const webhooks = await referenceOf(target).inbox.since(own.cursor ?? 0, (own.wait_seconds ?? 0) * 1000);
      return { webhooks, cursor: webhooks.at(-1)?.seq ?? own.cursor ?? 0 };
    },
  }),
];
