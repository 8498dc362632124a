// One tool: its name, words, annotations and schemas for tools/list, and how a call is checked and run.
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { PspValidationError } from '../../client/base-errors.js';
import { IdempotencyKey, inputSchemas } from '../../schemas/inputs.js';
import { type FieldIssue, ownFieldIssues, parseOwn } from '../../schemas/issues.js';
import { ToolRefusal } from '../errors.js';
import { component, extend, type JsonSchema, orPending, text, untrusted } from '../json-schema.js';
import type { Target } from '../target.js';

/** The MCP tool annotations this server sets. */
export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** A call's arguments once checked: the tool's own, and the request body passed on to the API as it is. */
export interface Checked {
  own: Record<string, unknown>;
  body: Record<string, unknown>;
}

/** A tool as the server registers it. */
export interface Tool {
  name: string;
  description: string;
  annotations: ToolAnnotations;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  /** Only against the in-process reference (the simulator's moves, faults, state). */
  referenceOnly: boolean;
  /** A creation: an `idempotency_key` is made when the agent gives none, before anything else. */
  creates: boolean;
  /** Moves money: what the call will do, said to the person asked to confirm it. */
  moves: ((call: Checked) => string) | undefined;
  /**
   * Before a money-moving call is shown to anyone: checks what it can against the service (a refund above the
   * balance is refused here, not after a person said yes) and answers the minor units it would move (undefined: no
   * amount, a cancel). Default: the body's `amount`.
   */
  preflight(call: Checked, target: Target): Promise<number | undefined>;
  check(args: Record<string, unknown>): Checked;
  run(call: Checked, target: Target): Promise<Record<string, unknown>>;
}

/** A call's own arguments, as their JSON Schema checked them. */
export type Args = Record<string, any>;

/** What a tool's definition says; the rest is made from it. */
export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  /** The tool's own arguments: JSON Schema of each, as tools/list shows it and the call is checked by. */
  own: Record<string, JsonSchema>;
  /** Which of them a call must give. Default none. */
  required?: string[] | undefined;
  /** The request body (its openapi.json component and input schema) whose fields join the arguments. */
  body?: keyof ReturnType<typeof inputSchemas> | undefined;
  /** The answer: a component's name, or a schema. */
  output: string | JsonSchema;
  readOnly?: boolean | undefined;
  destructive?: boolean | undefined;
  idempotent?: boolean | undefined;
  referenceOnly?: boolean | undefined;
  creates?: boolean | undefined;
  moves?: ((call: { own: Args; body: Record<string, unknown> }) => string) | undefined;
  /** See {@link Tool.preflight}. Default: the body's `amount`. */
  preflight?:
    | ((call: { own: Args; body: Record<string, unknown> }, target: Target) => Promise<number | undefined>)
    | undefined;
  /** A rule across arguments that no single field's schema says: the reason a call breaks it, else undefined. */
  refine?: ((call: { own: Args; body: Record<string, unknown> }) => string | undefined) | undefined;
  run(call: { own: Args; body: Record<string, unknown> }, target: Target): Promise<Record<string, unknown>>;
}

const ajv = new AjvJsonSchemaValidator();

/** Builds a {@link Tool} from its spec. */
export function defineTool(spec: ToolSpec): Tool {
  const required = spec.required ?? [];
  const ownJson: JsonSchema = {
    type: 'object',
    properties: spec.own,
    ...(required.length ? { required } : {}),
    additionalProperties: false,
  };
  const ownKeys = Object.keys(spec.own);
  const inputSchema = spec.body ? extend(component(spec.body), spec.own, required) : ownJson;
  let validate: ReturnType<AjvJsonSchemaValidator['getValidator']> | undefined;
  const done = typeof spec.output === 'string' ? component(spec.output) : spec.output;
  const check = (args: Record<string, unknown>): Checked => {
    const own: Record<string, unknown> = {};
    const body: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(args)) (ownKeys.includes(k) || !spec.body ? own : body)[k] = v;
    validate ??= ajv.getValidator(ownJson);
    const r = validate(own);
    if (!r.valid) {
      // Ajv's words, with the argument's name in place of its path (`data/cursor must be >= 0`).
      const why = (r.errorMessage ?? 'invalid')
        .replace(/\bdata\//g, '')
        .replace(/\bdata\b/g, 'the arguments');
      throw new ToolRefusal('invalid_input', 400, `Invalid arguments: ${why}`);
    }
    // The schemas PspClient checks with, here too: a call is refused before anyone is asked to confirm it.
    const issues: FieldIssue[] = [];
    const key = own.idempotency_key === undefined ? undefined : parseOwn(IdempotencyKey, own.idempotency_key);
    if (key && !key.success)
      issues.push({ field: 'idempotency_key', message: ownFieldIssues(key.error.issues)[0]!.message });
    const parsed = spec.body ? parseOwn(inputSchemas()[spec.body], body) : undefined;
    if (parsed && !parsed.success) issues.push(...ownFieldIssues(parsed.error.issues));
    if (issues.length) throw new PspValidationError(issues);
    const broken = spec.refine?.({ own, body });
    if (broken !== undefined) throw new ToolRefusal('invalid_input', 400, `Invalid arguments: ${broken}`);
    return { own, body };
  };
  return {
    name: spec.name,
    description: spec.description,
    annotations: {
      title: spec.title,
      readOnlyHint: spec.readOnly ?? false,
      destructiveHint: spec.destructive ?? spec.moves !== undefined,
      idempotentHint: spec.idempotent ?? spec.readOnly ?? false,
      // The reference is in this process; a service is beyond it.
      openWorldHint: !spec.referenceOnly,
    },
    inputSchema,
    outputSchema: spec.moves ? orPending(untrusted(done)) : untrusted(done),
    referenceOnly: spec.referenceOnly ?? false,
    creates: spec.creates ?? false,
    moves: spec.moves,
    preflight:
      spec.preflight ?? (async ({ body }) => (typeof body.amount === 'number' ? body.amount : undefined)),
    check,
    run: (call, target) => spec.run(call, target),
  };
}

/** The reference side, or the refusal of a reference-only tool against a service. */
export function referenceOf(target: Target): NonNullable<Target['reference']> {
  if (!target.reference) {
    throw new ToolRefusal(
      'reference_only',
      null,
      'This tool drives the in-process reference; psp-mcp was started against a service (--base-url/--api-key).',
    );
  }
  return target.reference;
}

/** An Idempotency-Key argument (the spec's rule is PspClient's, checked with the call). */
export const idempotencyKeyArg = (): JsonSchema =>
  text(
    'Idempotency-Key of the creation (spec 5.6). Give the same key to repeat a call safely; when absent psp-mcp makes one and returns it.',
    { max: 64 },
  );

/** A path id argument. */
export const idArg = (what: string): JsonSchema => text(`The ${what}'s id.`);
