import * as z from 'zod/mini';
import { eventSchemas } from '../schemas/events.js';
import { inputSchemas } from '../schemas/inputs.js';
import { responseSchemas } from '../schemas/resources.js';
import { type JsonSchema, LEAVES } from './leaves.js';

/** Where a component is found from anywhere in the document. */
export const componentRef = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** The wire's schemas (spec section 2) by component name, strict: what the reference sends and accepts. */
function wireSchemas(): Record<string, z.ZodMiniType> {
  const r = responseSchemas(true);
  const i = inputSchemas(true);
  const e = eventSchemas(true);
  return {
    Payment: r.Payment,
    CreatePaymentInput: i.CreatePaymentInput,
    CreatePaymentResponse: r.CreatePaymentResponse,
    CancelPaymentResponse: r.CancelPaymentResponse,
    Refund: r.Refund,
    CreateRefundInput: i.CreateRefundInput,
    CreatePayoutInput: i.CreatePayoutInput,
    CreatePayoutResponse: r.CreatePayoutResponse,
    Payout: r.Payout,
    SBPBank: r.SBPBank,
    BankList: r.BankList,
    Error: r.ErrorBody,
    WebhookPayment: r.WebhookPayment,
    PaymentWebhook: e.PaymentWebhookEnvelope,
    PayoutWebhook: e.PayoutWebhookEnvelope,
    SseEvent: e.SseEnvelope,
  };
}

/**
 * The JSON type a custom zod leaf accepts, read from its own predicate: the leaves of src/schemas are `typeof`
 * and `Array.isArray` checks that accept exactly one JSON type, so one sample of each type finds it.
 */
function probeType(schema: z.ZodMiniType): string {
  const fn = (schema._zod.def as { fn?: ((v: unknown) => unknown) | undefined }).fn;
  if (typeof fn !== 'function') throw new Error('openapi: a custom zod type without a predicate');
  const samples: Array<[string, unknown]> = [
    ['string', 'x'],
    ['boolean', true],
    ['number', 1.5],
    ['array', []],
    ['object', {}],
  ];
  const types = samples.filter(([, v]) => fn(v) === true).map(([t]) => t);
  if (types.length !== 1) throw new Error(`openapi: a custom zod leaf accepts ${types.length} JSON types`);
  return types[0]!;
}

/** Merges the leaf rules of `LEAVES[component]` into the zod-made JSON Schema, refusing any that do not fit. */
function applyLeaves(component: string, root: JsonSchema): void {
  const rules = LEAVES[component] ?? {};
  const used = new Set<string>();
  const walk = (schema: JsonSchema, prefix: string) => {
    const props = schema.properties as Record<string, JsonSchema> | undefined;
    if (!props) return;
    for (const [key, child] of Object.entries(props)) {
      const path = prefix ? `${prefix}.${key}` : key;
      // A nullable field is `anyOf: [leaf, { type: 'null' }]` or `type: [type, 'null']`: the rule goes to the leaf.
      const any = child.anyOf as JsonSchema[] | undefined;
      let leaf = any ? any.find((s) => s.type !== 'null')! : child;
      const rule = rules[path];
      if (rule) {
        used.add(path);
        if (leaf.$ref) throw new Error(`openapi: ${component}.${path} is a component, not a leaf`);
        const types = Array.isArray(leaf.type) ? (leaf.type as string[]) : [leaf.type as string | undefined];
        const type = types.find((t) => t !== 'null');
        const fits =
          type === undefined || type === rule.type || (type === 'number' && rule.type === 'integer');
        if (!fits)
          throw new Error(
            `openapi: ${component}.${path} is a ${type} in zod, ${String(rule.type)} in LEAVES`,
          );
        for (const k of Object.keys(leaf)) delete leaf[k];
        if (types.includes('null')) {
          const inner = structuredClone(rule);
          leaf.anyOf = [inner, { type: 'null' }];
          leaf = inner;
        } else Object.assign(leaf, structuredClone(rule));
      }
      walk(leaf, path);
    }
  };
  walk(root, '');
  const stale = Object.keys(rules).filter((path) => !used.has(path));
  if (stale.length) throw new Error(`openapi: LEAVES.${component} names no field: ${stale.join(', ')}`);
}

/**
 * The `components.schemas` of the document, made by zod's `toJSONSchema` from the schemas in src/schemas (the one
 * source of the wire types): every component of spec section 2, the error body, and the webhook and SSE envelopes.
 */
export function componentSchemas(): Record<string, JsonSchema> {
  const wire = wireSchemas();
  const registry = z.registry<{ id: string }>();
  for (const [name, schema] of Object.entries(wire)) registry.add(schema, { id: name });
  const { schemas } = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    uri: (id) => `#/components/schemas/${id}`,
    unrepresentable: ({ zodSchema }) => ({ type: probeType(zodSchema as unknown as z.ZodMiniType) }),
  } as Parameters<typeof z.toJSONSchema>[1] & { uri: (id: string) => string }) as {
    schemas: Record<string, JsonSchema>;
  };
  if (schemas.__shared) throw new Error('openapi: zod extracted shared definitions; name them as components');
  const out: Record<string, JsonSchema> = {};
  for (const name of Object.keys(wire)) {
    // A deep copy: zod may share one object between components, and the leaf rules differ between them.
    const schema = structuredClone(schemas[name]!);
    delete schema.$schema;
    delete schema.$id;
    if (name in LEAVES) applyLeaves(name, schema);
    out[name] = schema;
  }
  const unknown = Object.keys(LEAVES).filter((name) => !(name in wire));
  if (unknown.length) throw new Error(`openapi: LEAVES names no component: ${unknown.join(', ')}`);
  return out;
}
