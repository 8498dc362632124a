/**
 * Each public route's byte cap, from its row's input schema (the OpenAPI document's component, made from
 * src/schemas): the largest body a valid request can have, so a larger one is refused by its declared length before
 * a byte of it is read (issue 40, N4: a 1 MiB body refused after reading still cost 6 ms of CPU). A route without an
 * input takes at most {@link NO_BODY_MAX_BYTES}.
 *
 * "Largest valid" is taken generously, so no valid request is ever refused for its size: every character of a string
 * as a JSON escape of a surrogate pair (12 bytes a code point, as an ASCII-only encoder writes an emoji), every
 * number at 330 characters (past that it is Infinity, still a valid JSON number), 64 bytes of whitespace around each
 * member, and 4 KiB for the rest. A string with no `maxLength` or `enum` (a pattern's: a phone, a bank id) counts as
 * the longest string of the wire, `LIMITS.urlMax`.
 */
import openApi from '../../../openapi.json' with { type: 'json' };
import { DEFAULTS } from '../domain/defaults.js';
import { LIMITS } from '../../schemas/limits.js';
import { OPERATIONS, type OperationName, type OperationRow } from '../../schemas/operations.js';
import { NO_BODY_MAX_BYTES } from './body.js';

/** The parts of a JSON Schema the cap reads. */
interface Schema {
  $ref?: string | undefined;
  type?: string | string[] | undefined;
  enum?: unknown[] | undefined;
  maxLength?: number | undefined;
  properties?: Record<string, Schema> | undefined;
  additionalProperties?: Schema | boolean | undefined;
  maxProperties?: number | undefined;
  propertyNames?: Schema | undefined;
  items?: Schema | undefined;
  maxItems?: number | undefined;
  anyOf?: Schema[] | undefined;
  oneOf?: Schema[] | undefined;
}

const BYTES_PER_CHAR = 12;
const NUMBER_BYTES = 330;
const MEMBER_SLACK = 64;
const BODY_SLACK = 4096;

const components = openApi.components.schemas as unknown as Record<string, Schema>;

/** The most bytes a JSON text valid against `schema` takes; Infinity where the schema sets no bound. */
export function largestJson(schema: Schema, depth = 0): number {
  if (depth > 16) return Number.POSITIVE_INFINITY;
  if (schema.$ref) return largestJson(components[schema.$ref.split('/').pop()!] ?? {}, depth + 1);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return Math.max(...alternatives.map((s) => largestJson(s, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (type.includes('object')) return largestObject(schema, depth);
  if (type.includes('array')) {
    if (schema.maxItems === undefined || !schema.items) return Number.POSITIVE_INFINITY;
    return 2 + schema.maxItems * (largestJson(schema.items, depth + 1) + MEMBER_SLACK);
  }
  if (type.includes('string')) return 2 + longestString(schema) * BYTES_PER_CHAR;
  if (type.includes('integer') || type.includes('number')) return NUMBER_BYTES;
  if (type.includes('boolean')) return 5;
  return 4; // null
}

function longestString(schema: Schema): number {
  if (schema.enum) return Math.max(...schema.enum.map((v) => String(v).length));
  return schema.maxLength ?? LIMITS.urlMax;
}

function largestObject(schema: Schema, depth: number): number {
  let total = 2;
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    total += 2 + name.length * BYTES_PER_CHAR + largestJson(property, depth + 1) + MEMBER_SLACK;
  }
  const more = schema.additionalProperties;
  if (more && more !== true && schema.maxProperties !== undefined) {
    const key = 2 + (schema.propertyNames?.maxLength ?? LIMITS.urlMax) * BYTES_PER_CHAR;
    total += schema.maxProperties * (key + largestJson(more, depth + 1) + MEMBER_SLACK);
  } else if (more !== undefined && more !== false) total = Number.POSITIVE_INFINITY;
  return total;
}

let caps: Map<OperationName, number> | undefined;

/**
 * The byte cap of an operation's body: the largest valid body (see the module's comment), never more than the
 * API's 1 MiB; {@link NO_BODY_MAX_BYTES} for a row without an input.
 *
 * @example bodyCapOf('payments.refund'); // about 17 KiB
 */
export function bodyCapOf(name: OperationName): number {
  caps ??= new Map(
    (Object.keys(OPERATIONS) as OperationName[]).map((n) => {
      const row: OperationRow = OPERATIONS[n];
      const largest = row.input ? largestJson(components[row.input] ?? {}) + BODY_SLACK : NO_BODY_MAX_BYTES;
      return [n, Math.min(Math.ceil(largest), DEFAULTS.maxBodyBytes)];
    }),
  );
  return caps.get(name)!;
}
