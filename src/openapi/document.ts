import { WEBHOOK_EVENTS } from '../schemas/names.js';
import { IDEMPOTENCY_KEY_RE, LIMITS } from '../schemas/limits.js';
import { componentRef, componentSchemas } from './components.js';
import type { JsonSchema } from './leaves.js';
import { ERROR_CODES } from '../schemas/errors.js';
import { OPERATIONS, type OperationName, type OperationRow, PUBLIC_PREFIX } from '../schemas/operations.js';
import { type Answer, OPERATION_DOCS, type Refusal, SHARED_REFUSALS } from './operations.js';

/** An OpenAPI 3.1 document, as plain JSON. */
export type OpenApiDocument = {
  openapi: string;
  paths: Record<string, Record<string, JsonSchema>>;
} & JsonSchema;

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

const REQUEST_ID = ref('headers', 'RequestId');

function jsonAnswer(answer: Answer, schema: OperationRow['answer']): JsonSchema {
  const headers: JsonSchema = { 'X-Request-Id': REQUEST_ID };
  if (answer.replay) headers['Idempotent-Replayed'] = ref('headers', 'IdempotentReplayed');
  if (answer.stream) {
    return {
      description: answer.description,
      headers,
      // OpenAPI 3.1 has no schema for a stream's messages (3.2's itemSchema): an extension names the component for
      // tools that read it, and JSON Schema's contentSchema annotates the string with it, so that linters see the
      // component used (redocly's no-unused-components warned on SseEvent).
      content: {
        'text/event-stream': {
          schema: {
            type: 'string',
            contentMediaType: 'text/event-stream',
            contentSchema: componentRef('SseEvent'),
          },
          'x-sse-data': componentRef('SseEvent'),
        },
      },
    };
  }
  if (!schema) throw new Error('openapi: a JSON answer of an operation whose row names no answer schema');
  return {
    description: answer.description,
    headers,
    content: { 'application/json': { schema: componentRef(schema) } },
  };
}

function errorAnswer(status: number, description: string): JsonSchema {
  const headers: JsonSchema = { 'X-Request-Id': REQUEST_ID };
  if (status === 429 || status === 503) headers['Retry-After'] = ref('headers', 'RetryAfter');
  return { description, headers, content: { 'application/json': { schema: componentRef('Error') } } };
}

/**
 * The error answers of `refusals`, by the status each code has in the table of codes: one description per status,
 * naming its codes (`` `not_found`: why. `` alone, else `` `a` (why), `b` or `c`. ``).
 */
export function refusalTexts(refusals: readonly Refusal[]): Map<number, string> {
  const byStatus = new Map<number, Array<readonly [string, string?]>>();
  for (const refusal of refusals) {
    const [code, why] = typeof refusal === 'string' ? [refusal] : refusal;
    const { status } = ERROR_CODES[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), [code, why]]);
  }
  const texts = new Map<number, string>();
  for (const [status, codes] of byStatus) {
    const [[code, why] = ['']] = codes;
    if (codes.length === 1 && why) {
      texts.set(status, `\`${code}\`: ${why}.`);
      continue;
    }
    const named = codes.map(([c, w]) => (w ? `\`${c}\` (${w})` : `\`${c}\``));
    const last = named.pop();
    texts.set(status, `${named.length ? `${named.join(', ')} or ` : ''}${last}.`);
  }
  return texts;
}

function operation(name: OperationName): JsonSchema {
  const row: OperationRow = OPERATIONS[name];
  const op = OPERATION_DOCS[name];
  const parameters: JsonSchema[] = [];
  if (row.id) parameters.push(ref('parameters', row.id === 'payment' ? 'PaymentId' : 'PayoutId'));
  if (row.idempotent) parameters.push(ref('parameters', 'IdempotencyKey'));
  parameters.push(ref('parameters', 'Signature'));
  const byStatus: Array<[number, JsonSchema]> = [
    ...Object.entries(op.ok).map(([s, a]) => [Number(s), jsonAnswer(a, row.answer)] as [number, JsonSchema]),
    ...[...refusalTexts([...op.refusals, ...SHARED_REFUSALS])].map(
      ([s, d]) => [s, errorAnswer(s, d)] as [number, JsonSchema],
    ),
  ];
  byStatus.sort((a, b) => a[0] - b[0]);
  return {
    operationId: op.operationId,
    summary: op.summary,
    description: `Spec section ${op.section}.`,
    parameters,
    ...(row.input
      ? {
          requestBody: {
            required: !row.inputOptional,
            content: { 'application/json': { schema: componentRef(row.input) } },
          },
        }
      : {}),
    responses: Object.fromEntries(byStatus.map(([s, r]) => [String(s), r])),
  };
}

function paths(): Record<string, Record<string, JsonSchema>> {
  const out: Record<string, Record<string, JsonSchema>> = {};
  for (const name of Object.keys(OPERATIONS) as OperationName[]) {
    const { method, path } = OPERATIONS[name];
    const full = `${PUBLIC_PREFIX}${path}`;
    out[full] = { ...out[full], [method.toLowerCase()]: operation(name) };
  }
  return out;
}

/** Spec 4.9 and 6.1: what the service POSTs to the merchant's endpoint, one entry per event name. */
function webhooks(): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const event of WEBHOOK_EVENTS) {
    const header = (name: string, description: string) => ({
      name,
      in: 'header',
      required: true,
      description,
      schema: { type: 'string' },
    });
    out[event] = {
      post: {
        // `payment.succeeded` is `paymentSucceededWebhook`: every operation has an id (redocly's rule).
        operationId: `${event.replace(/\.(\w)/, (_, c: string) => c.toUpperCase())}Webhook`,
        summary: `Webhook ${event}`,
        description:
          'Spec section 6.1: delivered until a 2xx answers within 15 s; retried on the 6.1 schedule.',
        security: [],
        parameters: [
          header('X-PSP-Event-Id', 'The `evt_` id, as in the body; stable across retries.'),
          header(
            'X-PSP-Signature',
            "v2 `t=<unix_ts>,v1=<hex>,v2=<hex>` (HMAC-SHA256 of `<timestamp>.<raw body>`) or v1 `sha256=<hex>`, keyed by the endpoint's `whs_` secret.",
          ),
          header('X-PSP-Timestamp', 'The timestamp the v2 signature covers.'),
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: componentRef(event.startsWith('payout.') ? 'PayoutWebhook' : 'PaymentWebhook'),
            },
          },
        },
        responses: { '200': { description: 'Any 2xx within 15 s acknowledges the event.' } },
      },
    };
  }
  return out;
}

/**
 * The OpenAPI 3.1 document of the public API as the reference implements it: every operation of spec section 4
 * with its parameters, body and every status it answers, the schemas of section 2 as components (made from the
 * zod schemas of src/schemas), the error body, and the webhooks of 6.1. Built by scripts/build-openapi.ts into
 * `openapi.json`, which the package ships as `psp-sdk/openapi.json` and the reference serves at `GET /openapi.json`.
 *
 * @param version The package version, the document's `info.version`.
 * @example
 * const doc = buildOpenApiDocument('0.1.0');
 * Object.keys(doc.paths).length; // one path per row of the table of operations, under /api/v1/public
 */
export function buildOpenApiDocument(version: string): OpenApiDocument {
  return {
    openapi: '3.1.1',
    info: {
      title: 'Payment Service Public API (psp-sdk reference)',
      version,
      description:
        'The public API of the Payment Service (interface version 2026-05-06) as the psp-sdk reference implements it: every status each operation can answer is listed. Errors carry `{ error: { code, message } }`.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    // Spec 4: "All paths are relative to {base_url}". The one URL this package knows is the reference's default
    // (`psp-reference`, `startReference()`); a tool pointed elsewhere takes its own.
    servers: [
      {
        url: 'http://127.0.0.1:4010',
        description:
          "The reference's default address (`psp-reference`, `startReference()`); the service's own `{base_url}` (spec 4) elsewhere.",
      },
    ],
    security: [{ apiKey: [] }],
    paths: paths(),
    webhooks: webhooks(),
    components: {
      schemas: componentSchemas(),
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key, `sk_test_<6 chars>_<secret>` or `sk_live_<6 chars>_<secret>` (spec 5).',
        },
      },
      parameters: {
        PaymentId: { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
        PayoutId: { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'Spec 5.6: the same key with the same body replays the first answer (200); another body is a 409.',
          schema: { type: 'string', maxLength: LIMITS.idempotencyKeyMax, pattern: IDEMPOTENCY_KEY_RE.source },
        },
        Signature: {
          name: 'X-PSP-Signature',
          in: 'header',
          required: false,
          description:
            "Spec 5.4: `sha256=` and the hex HMAC-SHA256 of the raw body keyed by the terminal's `thm_` secret; required when the terminal requires signatures. A GET is signed over the empty string: it carries no body (one that declares a body is refused with 400).",
          schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' },
        },
      },
      headers: {
        RequestId: {
          description: 'The id of this answer, for support and logs.',
          schema: { type: 'string' },
        },
        IdempotentReplayed: {
          description: '`true` on a replay of an earlier creation.',
          schema: { type: 'string', enum: ['true'] },
        },
        RetryAfter: {
          description: 'Whole seconds to wait before retrying.',
          required: true,
          schema: { type: 'integer', minimum: 0 },
        },
      },
    },
  };
}
