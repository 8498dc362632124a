// The one redaction of the package: the client's errors and log lines and the reference's error bodies and log
// lines all pass through `redactSecrets`. A server, a proxy or a custom fetch may echo a secret in any encoding it
// likes, so a piece of text is checked as written and as each encoding would read it.

// A secret of this API by its form. `sk_test_`/`sk_live_` anywhere; the short prefixes only at the start of a
// word, so that `algorithm_x` stays readable. The secret runs to the next separator.
const SECRET_RE = /(sk_(?:test|live)_|(?<![a-z\d])(?:thm|whs|adm)_)[^\s"'`,;()<>[\]{}|\\]*/gi;
// In a decoded view any prefix counts, even glued to what precedes it: the encoding hid it on purpose or not.
const PREFIX_RE = /sk_(?:test|live)_|thm_|whs_|adm_/i;
const BEARER_RE = /\b((?:Bearer|Basic)\s+)[^\s"'`,;()<>[\]{}|\\]+/gi;
// A run of text between separators: what an encoding keeps together.
const TOKEN_RE = /[^\s"'`,()<>[\]{}|]+/g;
const B64_RUN_RE = /[A-Za-z\d+/_-]{12,}/g;
const HEX_RUN_RE = /(?:[\da-f]{2}){6,}/gi;
const MASK = '***';

/** The secrets this process gave a PspClient, past their prefix: redacted wherever a piece of one shows. */
const known = new Set<string>();
let knownRe: RegExp | undefined;

/**
 * Remembers a secret (the client's API key and signing secret) so that {@link redactSecrets} also finds it without
 * its prefix, and any piece of 8 characters or more of it (a secret split across two fields, or cut short). At most
 * 32 are kept, the oldest forgotten first.
 *
 * @example
 * rememberSecret('sk_test_ab12cd_S3cretPart0123');
 */
export function rememberSecret(secret: string): void {
  // With the prefix it is found by its form; a short part would match ordinary words. A secret given again (a
  // client per request) only makes the pattern be built once more, on the next redaction.
  const s = secret.replace(/^(sk_(test|live)_[^_]*|thm)_/, '');
  if (s.length < 8) return;
  known.add(s);
  if (known.size > 32) known.delete(known.values().next().value as string);
  knownRe = undefined;
}

/**
 * Forgets every remembered secret, as a new process starts. For a test runner that runs many test files in one
 * process (vitest with `isolate: false`): a secret one file gave a client is not masked in another file's text.
 *
 * @example
 * afterAll(() => forgetSecrets());
 */
export function forgetSecrets(): void {
  known.clear();
  knownRe = undefined;
}

function knownPattern(): RegExp | undefined {
  if (!known.size) return undefined;
  // Every 8 characters in a row of a secret, then the rest of the run of secret characters: a longer piece goes
  // whole. Only `.` and `+` of a secret's alphabet (see options.ts) need escaping.
  knownRe ??= new RegExp(
    `(?:${[...known].flatMap((s) => [...s.slice(7)].map((_, i) => s.slice(i, i + 8).replace(/[.+]/g, '\\$&'))).join('|')})[\\w.~+/=-]*`,
    'gi',
  );
  return knownRe;
}

function looksSecret(text: string): boolean {
  // Most decoded views are binary noise: no run of secret characters, nothing to look for.
  if (!/[\w.~+/=-]{4}/.test(text)) return false;
  const re = knownPattern();
  if (re) re.lastIndex = 0;
  return PREFIX_RE.test(text) || (re?.test(text) ?? false);
}

const fromCode = (n: string, radix: number) => String.fromCharCode(Number.parseInt(n, radix));

/** Percent (any case, nested), JSON and JS escapes, HTML character references: decoded until stable. */
function decodeEscapes(text: string): string {
  let t = text;
  for (let i = 0; i < 4; i++) {
    const next = t
      .replace(/%([\da-f]{2})/gi, (_, h: string) => fromCode(h, 16))
      .replace(/\\u([\da-f]{4})|\\u\{([\da-f]{1,6})\}|\\x([\da-f]{2})/gi, (_, u, v, x) =>
        fromCode(u ?? v ?? x, 16),
      )
      .replace(/&#(x?)([\da-f]+);?/gi, (_, x: string, n: string) => fromCode(n, x ? 16 : 10))
      .replace(/&lowbar;/gi, '_');
    if (next === t) break;
    t = next;
  }
  return t;
}

/** base64 or base64url at each of the four alignments (the run may begin mid-block). */
function base64Views(text: string): string[] {
  const out: string[] = [];
  for (const run of text.match(B64_RUN_RE) ?? []) {
    const std = run.replace(/-/g, '+').replace(/_/g, '/');
    for (let k = 0; k < 4; k++) {
      const part = std.slice(k);
      try {
        // A last group of 2 or 3 characters still decodes (1 or 2 bytes); a single one does not.
        out.push(atob(part.length % 4 === 1 ? part.slice(0, -1) : part));
      } catch {
        // Not base64 at this alignment.
      }
    }
  }
  for (const run of text.match(HEX_RUN_RE) ?? []) {
    for (let k = 0; k < 2; k++) out.push(run.slice(k).replace(/[\da-f]{2}/gi, (h) => fromCode(h, 16)));
  }
  return out;
}

/** Whether an encoded reading of `token` (not the token as written) carries a secret. */
function hidesSecret(token: string): boolean {
  const plain = decodeEscapes(token);
  if (plain === token) return base64Views(token).some(looksSecret);
  return looksSecret(plain) || [token, plain].some((t) => base64Views(t).some(looksSecret));
}

/**
 * Masks every secret in `text`: API keys (`sk_test_...`, `sk_live_...`), signing secrets (`thm_...`), webhook
 * secrets (`whs_...`), admin tokens (`adm_...`), bearer and basic credentials, and the secrets given to a
 * PspClient in this process even without their prefix, or any piece of 8 characters of them. A secret written
 * plainly keeps its prefix (`sk_test_***`); one hidden in an encoding (percent-encoded in any case, JSON or HTML
 * escapes, base64, hex) takes its whole run of text with it (`[redacted]`).
 *
 * @example
 * redactSecrets('bad key sk_test_abc123_s3cr3t'); // 'bad key sk_test_***'
 * redactSecrets('key=sk%5Ftest%5Fabc123%5Fs3cr3t'); // '[redacted]'
 */
export function redactSecrets(text: string): string {
  let out = text.replace(TOKEN_RE, (token) => (hidesSecret(token) ? '[redacted]' : token));
  out = out.replace(SECRET_RE, `$1${MASK}`).replace(BEARER_RE, `$1${MASK}`);
  const re = knownPattern();
  return re ? out.replace(re, MASK) : out;
}

/**
 * A copy of `value` with {@link redactSecrets} applied to every string in it (object keys included), through
 * plain objects and arrays; what a log line's meta goes through.
 *
 * @example
 * redactDeep({ error: 'fetch failed: Bearer sk_test_ab12cd_x' }); // { error: 'fetch failed: Bearer ***' }
 */
export function redactDeep(value: unknown, depth = 6): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (value === null || typeof value !== 'object' || depth === 0) return value;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, depth - 1));
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[redactSecrets(k)] = redactDeep(v, depth - 1);
  return out;
}

/**
 * Response and request headers safe to show in an error or a log line. `Authorization`, `X-PSP-Signature`,
 * `Cookie` and `Set-Cookie` are never among them.
 */
export const SAFE_HEADERS: ReadonlySet<string> = new Set([
  'content-type',
  'content-length',
  'date',
  'idempotency-key',
  'retry-after',
  'x-request-id',
  'request-id',
  'x-psp-request-id',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'user-agent',
  'accept',
]);

/**
 * A plain object of only the allow-listed headers of `headers` (see {@link SAFE_HEADERS}).
 *
 * @example
 * safeHeaders(new Headers({ authorization: 'Bearer sk_...', 'retry-after': '2' })); // { 'retry-after': '2' }
 */
export function safeHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  // Headers iterates lower-cased names.
  for (const [name, value] of headers) if (SAFE_HEADERS.has(name)) out[name] = redactSecrets(value);
  return out;
}
