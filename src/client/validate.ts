import type * as z from 'zod/mini';
import { type FieldIssue, formatFieldIssues, ownFieldIssues, parseOwn } from '../schemas/issues.js';
import { IdempotencyKey } from '../schemas/inputs.js';
import { responseSchemas } from '../schemas/resources.js';

type ResponseSchemas = ReturnType<typeof responseSchemas>;
import { formsOnly, type Redactor } from '../internal/redact.js';
import { PspResponseError, PspValidationError, redactError } from './errors.js';

/** Any UUID (8-4-4-4-12 hex digits): the id of a path. */
const UUID_RE = /^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/i;

/**
 * Checks a request body against its schema; throws {@link PspValidationError} naming every bad field, redacted with
 * `redact` (the client's: a field is named by its key, and a metadata key is the caller's text).
 * Returns the input itself, not zod's copy: what is sent is what the caller wrote.
 *
 * @example
 * checkInput(inputSchemas().CreatePaymentInput, { amount: 0 }); // throws: amount: must be at least 1
 */
export function checkInput<T>(
  schema: z.ZodMiniType | undefined,
  input: T,
  extra: FieldIssue[] = [],
  redact: Redactor = formsOnly,
): T {
  const r = schema && parseOwn(schema, input);
  const issues = !r || r.success ? extra : [...ownFieldIssues(r.error.issues), ...extra];
  if (issues.length > 0) throw redactError(new PspValidationError(issues), redact);
  return input;
}

/** The issue for a path id that is not a UUID, or none. */
export function idIssue(field: string, id: unknown): FieldIssue[] {
  return typeof id === 'string' && UUID_RE.test(id) ? [] : [{ field, message: 'must be a UUID' }];
}

/** The issue for a bad caller-given Idempotency-Key, or none: the reference's rule, from its one schema. */
export function idempotencyKeyIssue(key: unknown): FieldIssue[] {
  if (key === undefined) return [];
  const r = parseOwn(IdempotencyKey, key);
  return r.success
    ? []
    : ownFieldIssues(r.error.issues).map((i) => ({ field: 'idempotencyKey', message: i.message }));
}

// What could take a request out of /api/v1/public once a URL parser (or the server) normalises it: a dot segment,
// plain or percent-encoded in any case (`..`, `.%2e`, `%2E%2E`, and `..;` which some servers read as `..`); a
// slash or backslash, encoded or not, where a segment should be; a query or fragment; whitespace and control
// characters (WHATWG URL drops tabs and newlines).
const PATH_ESCAPE_RE = /(^|\/)(\.|%2e){1,2}(\/|;|$)|%2f|%5c|\\|[?#\s\p{Cc}]/iu;

/**
 * The issue for a path of `client.request()` that is not a plain path below `/api/v1/public`, or none: it must
 * start with one `/` and stay below that prefix whatever a URL parser does with it.
 *
 * @example
 * pathIssue('/../../_cabinet/merchants'); // [{ field: 'path', message: 'must be a path below /api/v1/public: ...' }]
 */
export function pathIssue(path: unknown): FieldIssue[] {
  return typeof path === 'string' && /^\/(?!\/)/.test(path) && !PATH_ESCAPE_RE.test(path)
    ? []
    : [
        {
          field: 'path',
          message:
            'must be a path below /api/v1/public: one leading /, no . or .. segment (plain or percent-encoded), no backslash, encoded slash, query, fragment or spaces',
        },
      ];
}

const PLACEHOLDER_RE = /^\{\w{1,64}\}$/;

/**
 * The issue for a `template` of `client.request()` that does not describe its `path`, or none: the same
 * segments, each either the path's own or a `{name}` placeholder.
 *
 * @example
 * templateIssue('/customers/{customer}', '/customers/c-42'); // []
 */
export function templateIssue(template: unknown, path: string): FieldIssue[] {
  if (template === undefined) return [];
  const want = path.split('/');
  const got = typeof template === 'string' ? template.split('/') : [];
  return got.length === want.length && got.every((s, i) => s === want[i] || PLACEHOLDER_RE.test(s))
    ? []
    : [
        {
          field: 'template',
          message: 'must be the path with {name} for each segment that varies',
        },
      ];
}

/** Throws {@link PspValidationError} when `issues` is not empty. */
export function assertNoIssues(issues: FieldIssue[]): void {
  if (issues.length > 0) throw new PspValidationError(issues);
}

/**
 * A response parser for the response schema `name` in the client's mode: returns the checked JSON, or throws
 * {@link PspResponseError} listing the drift. The schemas are built on the first answer, not here.
 *
 * @example
 * const parse = responseParser(false, 'Payment', 'payment');
 */
export function responseParser<K extends keyof ResponseSchemas>(strict: boolean, name: K, what: string) {
  type T = z.output<ResponseSchemas[K]>;
  return (json: unknown, status: number): T => {
    const r = parseOwn(responseSchemas(strict)[name], json);
    // The checked value itself, unknown fields included (the schemas transform nothing; see `obj`).
    if (r.success) return json as T;
    const issues = ownFieldIssues(r.error.issues);
    const list = formatFieldIssues(issues.slice(0, 5));
    throw new PspResponseError(
      `Unexpected ${what} in the response (HTTP ${status}): ${list}`,
      status,
      issues,
    );
  };
}

/**
 * The JSON text of a request body; a body JSON cannot encode (a cycle, a BigInt) is a {@link PspValidationError}.
 *
 * @example
 * const body = jsonBody({ amount: 100 }); // '{"amount":100}'
 */
export function jsonBody(input: unknown): string {
  try {
    return JSON.stringify(input);
  } catch {
    throw new PspValidationError([
      { field: '(body)', message: 'must be JSON-serialisable (no cycles or BigInts)' },
    ]);
  }
}
