import * as z from 'zod/mini';
import { eventSchemas } from '../schemas/events.js';
import { inputSchemas } from '../schemas/inputs.js';
import { responseSchemas } from '../schemas/resources.js';
import { type JsonSchema, LEAVES } from './leaves.js';
import { OPERATIONS, type OperationRow } from '../schemas/operations.js';

/**
 * The components the document names itself, beyond the operations' bodies: the error body of every refusal
 * (spec 2.9), the webhooks' bodies (2.10) and the event stream's message (2.11).
 */
function ownSchemas() {
  const e = eventSchemas(true);
  return {
    Error: responseSchemas(true).ErrorBody,
    PaymentWebhook: e.PaymentWebhookEnvelope,
    PayoutWebhook: e.PayoutWebhookEnvelope,
    SseEvent: e.SseEnvelope,
  };
}

/** A component the document names itself (the operations' bodies are named by their rows). */
export type OwnComponent = keyof ReturnType<typeof ownSchemas>;

/** A component's name: one the document names itself, or a row's body or answer. */
export type ComponentName = OwnComponent | NonNullable<OperationRow['input'] | OperationRow['answer']>;

/** Where a component is found from anywhere in the document. */
export const componentRef = (name: ComponentName): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/**
 * Every named wire schema (src/schemas: `responseSchemas()`, `inputSchemas()`, and the document's own), strict,
 * by component name; and the roots, in the document's order: each row's body and answer in the table's order
 * (src/schemas/operations.ts), then the document's own. A named schema inside a root (a payout's `Payout`) is a
 * component too, found by zod; one no root reaches is left out.
 */
function wireSchemas(): { named: Map<z.ZodMiniType, string>; roots: string[] } {
  const own = ownSchemas();
  const named = new Map<z.ZodMiniType, string>();
  for (const [name, schema] of Object.entries(own)) named.set(schema, name);
  for (const table of [inputSchemas(true), responseSchemas(true)])
    for (const [name, schema] of Object.entries(table)) if (!named.has(schema)) named.set(schema, name);
  const rows: OperationRow[] = Object.values(OPERATIONS);
  const roots = [...rows.flatMap((row) => [row.input, row.answer]), ...Object.keys(own)].filter(
    (name): name is string => name !== undefined,
  );
  return { named, roots };
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
 * source of the wire types): every body and answer of the table of operations, the section 2 types they hold, the
 * error body, and the webhook and SSE envelopes. A row's schema is a component by being in the row.
 */
export function componentSchemas(): Record<string, JsonSchema> {
  const { named, roots } = wireSchemas();
  const registry = z.registry<{ id: string }>();
  for (const [schema, name] of named) registry.add(schema, { id: name });
  const { schemas } = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    uri: (id) => `#/components/schemas/${id}`,
    unrepresentable: ({ zodSchema }) => ({ type: probeType(zodSchema as unknown as z.ZodMiniType) }),
  } as Parameters<typeof z.toJSONSchema>[1] & { uri: (id: string) => string }) as {
    schemas: Record<string, JsonSchema>;
  };
  if (schemas.__shared) throw new Error('openapi: zod extracted shared definitions; name them as components');
  // The roots, then each component a finished one refers to (a leaf rule may add the reference: `BankList.items`),
  // in the order first referred to.
  const out: Record<string, JsonSchema> = {};
  const add = (name: string) => {
    if (name in out) return;
    if (!schemas[name]) throw new Error(`openapi: no component ${name}`);
    // A deep copy: zod may share one object between components, and the leaf rules differ between them.
    const schema = structuredClone(schemas[name]);
    delete schema.$schema;
    delete schema.$id;
    if (name in LEAVES) applyLeaves(name, schema);
    out[name] = schema;
    for (const [, ref] of JSON.stringify(schema).matchAll(/"#\/components\/schemas\/([^"]+)"/g)) add(ref!);
  };
  for (const root of roots) add(root);
  const unknown = Object.keys(LEAVES).filter((name) => !(name in out));
  if (unknown.length) throw new Error(`openapi: LEAVES names no component: ${unknown.join(', ')}`);
  return out;
}
