import type * as z from 'zod/mini';

/** One problem with an input, named by its dotted path (`metadata.color`) so a user knows what to fix. */
export interface FieldIssue {
  field: string;
  message: string;
}

const GENERIC = 'Invalid input';

/**
 * Parse options that keep zod's global config out of the messages. zod keeps its config on `globalThis`, shared by
 * every copy of zod in the process, and `import 'zod'` (the classic API many apps load) sets an English locale
 * there: without these options zod's wording ("Unrecognized key") would replace the messages below, so one bad
 * input would read differently depending on what else the app loaded. Use {@link parseOwn}, which passes them.
 */
const OWN_MESSAGES: z.core.ParseContext<z.core.$ZodIssue> = { error: () => GENERIC };

/**
 * `schema.safeParse(value)`, every parse of the SDK and the reference: a failure's messages are in the SDK's words
 * whatever zod's global config holds ({@link OWN_MESSAGES}). Only a failing value is parsed a second time, with the
 * options: passing them to every parse made a response's parse half as slow again (4.7 -> 6.8 µs for a payment),
 * and the options change the messages, never whether a value passes.
 *
 * @example
 * const r = parseOwn(inputSchemas(true).CreatePaymentInput, body); // r.error.issues: 'unknown field "x"'
 */
export function parseOwn<S extends z.ZodMiniType>(
  schema: S,
  value: unknown,
): z.core.util.SafeParseResult<z.output<S>> {
  const r = schema.safeParse(value) as z.core.util.SafeParseResult<z.output<S>>;
  return r.success ? r : (schema.safeParse(value, OWN_MESSAGES) as typeof r);
}

/** Messages for the issues the SDK's own schemas can raise without a message of their own. */
function basic(issue: z.core.$ZodIssue): string | undefined {
  if (issue.code === 'invalid_type') return `must be ${issue.expected}`;
  if (issue.code === 'unrecognized_keys')
    return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
  return undefined;
}

function fallback(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_value':
      return `must be one of ${issue.values.map(String).join(', ')}`;
    case 'too_small':
      return `must be at least ${String(issue.minimum)}`;
    case 'too_big':
      return `must be at most ${String(issue.maximum)}`;
    case 'invalid_format':
      return `must be a valid ${issue.format}`;
    default:
      return basic(issue) ?? 'is invalid';
  }
}

function mapIssues(
  issues: readonly z.core.$ZodIssue[],
  explain: (issue: z.core.$ZodIssue) => string,
): FieldIssue[] {
  return issues.map((issue) => ({
    field: issue.path.map(String).join('.') || '(body)',
    message: issue.message && issue.message !== GENERIC ? issue.message : explain(issue),
  }));
}

/** Turns zod issues of any schema into field-named messages; zod/mini ships no English messages of its own. */
export function toFieldIssues(issues: readonly z.core.$ZodIssue[]): FieldIssue[] {
  return mapIssues(issues, fallback);
}

/**
 * {@link toFieldIssues} for the SDK's own schemas (src/schemas): every rule there states its message, so only a
 * type mismatch or an unknown key needs one made up. Keeps the other explanations out of the client bundle.
 *
 * @example
 * ownFieldIssues(inputSchemas().CreatePaymentInput.safeParse({}).error!.issues); // [{ field: 'amount', ... }]
 */
export function ownFieldIssues(issues: readonly z.core.$ZodIssue[]): FieldIssue[] {
  return mapIssues(issues, (issue) => basic(issue) ?? 'is invalid');
}

/** `amount: must be at least 1; phone: must be +7 followed by exactly 10 digits` */
export function formatFieldIssues(issues: readonly FieldIssue[]): string {
  return issues.map((i) => (i.field === '(body)' ? i.message : `${i.field}: ${i.message}`)).join('; ');
}
