import { CODE } from '../../schemas/errors.js';
import * as z from 'zod/mini';
import { type FieldIssue, formatFieldIssues, parseOwn, toFieldIssues } from '../../schemas/issues.js';

/**
 * The most rules a reference holds. Every public request is compared with each rule, so the bound is also what
 * a rule list may cost a request; a hundred is far more than a test scenario needs.
 */
export const MAX_FAULT_RULES = 100;

const PUBLIC_PREFIX = '/api/v1/public/';
// Literal segments or the one placeholder `{id}`: a rule written with another placeholder would silently never fire.
const PATH_RE = /^\/api\/v1\/public(\/([A-Za-z0-9._~-]+|\{id\}))+$/;

const int = () => z.int('must be an integer');
// A type's own message covers every issue of it in zod/mini: these keep `unknown field` for what is not a type error.
const typeError = (message: string) => ({
  error: (issue: { code: string }) => (issue.code === 'invalid_type' ? message : undefined),
});
const max = (n: number) => z.maximum(n, `must be at most ${n}`);

const text = (re: RegExp, message: string) => z.string('must be a string').check(z.regex(re, message));

const RuleSchema = z.strictObject(
  {
    match: z.optional(
      z.strictObject(
        {
          method: z.optional(text(/^[A-Za-z]{1,16}$/, 'must be an HTTP method such as "POST"')),
          // Bounded: each rule is kept and its path compared on every public request (public paths are short).
          path: z.optional(
            text(
              PATH_RE,
              `must be a public API path under ${PUBLIC_PREFIX}, exact or with {id} for one segment`,
            ).check(z.maxLength(2048, 'must be at most 2048 characters')),
          ),
          merchant_id: z.optional(text(/^[A-Za-z0-9_-]{1,128}$/, 'must be a merchant id')),
          // Off by default: a rule is for the merchant's own calls, and a stray keyless request (a probe, a
          // health check) must not use up its `count` or pay for its key lookup.
          unauthenticated: z.optional(z.boolean('must be true or false')),
        },
        typeError('must be an object'),
      ),
    ),
    kind: z.enum(
      ['error', 'reset', 'latency', 'timeout'],
      'must be "error", "reset", "latency" or "timeout"',
    ),
    phase: z.optional(z.enum(['before', 'after'], 'must be "before" or "after"')),
    status: z.optional(
      int().check(z.refine((s) => s === 429 || (s >= 500 && s <= 599), 'must be 429 or from 500 to 599')),
    ),
    code: z.optional(
      text(/^[a-z][a-z0-9_]{0,63}$/, 'must be a snake_case error code of at most 64 characters'),
    ),
    retry_after: z.optional(int().check(z.minimum(0, 'must not be negative'), max(86_400))),
    // Bounded: a request held by a fault holds its memory and socket that long.
    delay_ms: z.optional(int().check(z.minimum(0, 'must not be negative'), max(600_000))),
    probability: z.optional(z.number('must be a number').check(z.minimum(0, 'must not be negative'), max(1))),
    count: z.optional(int().check(z.minimum(1, 'must be at least 1'))),
  },
  typeError('must be a fault rule object'),
);

/**
 * A fault rule as written (`POST /_simulator/faults`, `--faults <file>`, `createReference({ faults })`).
 *
 * @example
 * const rule: FaultRuleInput = { kind: 'reset', phase: 'after', probability: 0.3, match: { method: 'POST' } };
 */
export type FaultRuleInput = z.input<typeof RuleSchema>;

/**
 * A stored rule: its `id`, the input with the defaults filled in (`match` `{}`, `phase` `"before"`, `probability`
 * 1; for `error`: `status` 503, `code` `service_unavailable` or `rate_limited`, `retry_after` 1 on a 429; for
 * `latency` and `timeout`: `delay_ms` 1 000 and 60 000), and `hits`: the times it fired.
 */
export type FaultRule = Omit<Parsed, 'match' | 'phase' | 'probability'> &
  Required<Pick<Parsed, 'match' | 'phase' | 'probability'>> & { id: string; hits: number };

type Parsed = z.output<typeof RuleSchema>;

const ONLY: Record<string, { kinds: FaultRule['kind'][]; name: string }> = {
  status: { kinds: ['error'], name: '"error"' },
  code: { kinds: ['error'], name: '"error"' },
  retry_after: { kinds: ['error'], name: '"error"' },
  delay_ms: { kinds: ['latency', 'timeout'], name: '"latency" and "timeout"' },
};

/**
 * Validates one rule and fills in its defaults (without `id`). `where` prefixes each field named in a message
 * (`[2].` for the third rule of a list). Returns the rule, or the message naming every bad field.
 */
export function checkFaultRule(input: unknown, where = ''): Omit<FaultRule, 'id'> | { error: string } {
  const r = parseOwn(RuleSchema, input);
  const issues: FieldIssue[] = r.success ? [] : toFieldIssues(r.error.issues);
  if (r.success) {
    for (const [field, only] of Object.entries(ONLY)) {
      if (field in r.data && !only.kinds.includes(r.data.kind)) {
        issues.push({ field, message: `applies to kind ${only.name} only` });
      }
    }
    // A merchant is known only from a valid key: the two together could never match a keyless request.
    if (r.data.match?.unauthenticated && r.data.match.merchant_id !== undefined) {
      issues.push({ field: 'match.unauthenticated', message: 'cannot be combined with match.merchant_id' });
    }
  }
  if (!r.success || issues.length > 0) {
    const named = issues.map((i) => ({
      field: i.field === '(body)' ? where.replace(/\.$/, '') || '(body)' : `${where}${i.field}`,
      message: i.message,
    }));
    return { error: formatFieldIssues(named) };
  }
  const { match = {}, phase = 'before', probability = 1, ...rest } = r.data;
  const rule: Omit<FaultRule, 'id'> = {
    ...rest,
    match: match.method ? { ...match, method: match.method.toUpperCase() } : match,
    phase,
    probability,
    hits: 0,
  };
  if (rule.kind === 'error') {
    rule.status ??= 503;
    rule.code ??= rule.status === 429 ? CODE.rate_limited : CODE.service_unavailable;
    if (rule.status === 429) rule.retry_after ??= 1;
  }
  if (rule.kind === 'latency') rule.delay_ms ??= 1_000;
  if (rule.kind === 'timeout') rule.delay_ms ??= 60_000;
  return rule;
}

/**
 * Validates a list of rules (a `--faults` file, `createReference({ faults })`) whole.
 *
 * @throws TypeError naming the rule's index and the field, e.g. `[2].delay_ms: must be an integer`.
 * @example parseFaultRules(JSON.parse(text)); // the rules, else a TypeError
 */
export function parseFaultRules(list: unknown): FaultRuleInput[] {
  if (!Array.isArray(list)) throw new TypeError('must be a JSON array of fault rules');
  if (list.length > MAX_FAULT_RULES) throw new TypeError(`must hold at most ${MAX_FAULT_RULES} fault rules`);
  list.forEach((input, i) => {
    const rule = checkFaultRule(input, `[${i}].`);
    if ('error' in rule) throw new TypeError(rule.error);
  });
  return list as FaultRuleInput[];
}

/** Whether a request path matches a rule's `match.path` (`{id}` stands for one non-empty segment). */
export function pathMatches(pattern: string, path: string): boolean {
  if (!pattern.includes('{')) return pattern === path;
  const want = pattern.split('/');
  const got = path.split('/');
  return (
    want.length === got.length && want.every((seg, i) => seg === got[i] || (seg === '{id}' && got[i] !== ''))
  );
}
