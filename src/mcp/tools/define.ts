// One tool: its name, words, annotations and schemas for tools/list, and how a call is checked and run.
import * as z from 'zod/mini';
import { PspValidationError } from '../../client/base-errors.js';
import { checkInput, idempotencyKeyIssue } from '../../client/validate.js';
import { inputSchemas } from '../../schemas/inputs.js';
import { formatFieldIssues, parseOwn, toFieldIssues } from '../../schemas/issues.js';
import { ToolRefusal } from '../errors.js';
import { component, extend, fromZod, type JsonSchema, orPending } from '../json-schema.js';
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
  check(args: Record<string, unknown>): Checked;
  run(call: Checked, target: Target): Promise<Record<string, unknown>>;
}

/** What a tool's definition says; the rest is made from it. */
export interface ToolSpec<S extends z.core.$ZodLooseShape> {
  name: string;
  title: string;
  description: string;
  /** The tool's own arguments (plain zod: they become JSON Schema as they are). */
  own: S;
  /** The request body (its openapi.json component and input schema) whose fields join the arguments. */
  body?: keyof ReturnType<typeof inputSchemas>;
  /** The answer: a component's name, or a schema. */
  output: string | JsonSchema;
  readOnly?: boolean;
  destructive?: boolean;
  idempotent?: boolean;
  referenceOnly?: boolean;
  creates?: boolean;
  moves?: (call: { own: z.output<z.ZodMiniObject<S>>; body: Record<string, unknown> }) => string;
  run(
    call: { own: z.output<z.ZodMiniObject<S>>; body: Record<string, unknown> },
    target: Target,
  ): Promise<Record<string, unknown>>;
}

/** Builds a {@link Tool} from its spec. */
export function defineTool<S extends z.core.$ZodLooseShape>(spec: ToolSpec<S>): Tool {
  const ownSchema = z.strictObject(spec.own);
  const ownJson = fromZod(ownSchema);
  const ownKeys = Object.keys(spec.own);
  const inputSchema = spec.body
    ? extend(
        component(spec.body),
        ownJson.properties as Record<string, JsonSchema>,
        (ownJson.required as string[] | undefined) ?? [],
      )
    : { ...ownJson, type: 'object' };
  const done = typeof spec.output === 'string' ? component(spec.output) : spec.output;
  const check = (args: Record<string, unknown>): Checked => {
    const own: Record<string, unknown> = {};
    const body: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(args)) (ownKeys.includes(k) || !spec.body ? own : body)[k] = v;
    const r = parseOwn(ownSchema, own);
    if (!r.success) {
      throw new ToolRefusal(
        'invalid_input',
        400,
        `Invalid arguments: ${formatFieldIssues(toFieldIssues(r.error.issues))}`,
      );
    }
    // PspClient's own checks, here too: a call is refused before anyone is asked to confirm it.
    const keyIssues = idempotencyKeyIssue((r.data as { idempotency_key?: unknown }).idempotency_key);
    if (keyIssues.length) throw new PspValidationError(keyIssues);
    if (spec.body) checkInput(inputSchemas()[spec.body], body);
    return { own: r.data as Record<string, unknown>, body };
  };
  type Call = Parameters<ToolSpec<S>['run']>[0];
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
    outputSchema: spec.moves ? orPending(done) : done,
    referenceOnly: spec.referenceOnly ?? false,
    creates: spec.creates ?? false,
    moves: spec.moves ? (call) => spec.moves!(call as Call) : undefined,
    check,
    run: (call, target) => spec.run(call as Call, target),
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

/** An optional Idempotency-Key argument, with the spec's rule. */
export const idempotencyKeyArg = () =>
  z.optional(
    z
      .string()
      .check(
        z.minLength(1),
        z.maxLength(64),
        z.describe(
          'Idempotency-Key of the creation (spec 5.6). Give the same key to repeat a call safely; when absent psp-mcp makes one and returns it.',
        ),
      ),
  );

/** A path id argument. */
export const idArg = (what: string) =>
  z.string().check(z.minLength(1), z.maxLength(200), z.describe(`The ${what}'s id.`));
