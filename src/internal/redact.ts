// The one redaction of the package. Each owner of secrets has its own `Redactor` (a PspClient for its errors and log
// lines, a reference for its error bodies and log lines), which knows its owner's secrets and no other's; text that
// no owner holds goes through `redactSecrets`, which knows every secret by its form only. A server, a proxy or a
// custom fetch may echo a secret in any encoding it likes, so a piece of text is checked as written and as each
// encoding would read it: escapes, base64 and hex, UTF-16 read as bytes, one encoding inside another (base64 of
// base64), and lists of character codes. Deliberate obfuscation a machine does not undo by itself (reversed text,
// rot13, a dot or a space between every character) is out of scope: docs/reference.md says so.

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

/** The part of a secret that is found without its prefix: the prefix alone is found by its form. */
const bare = (secret: string) => secret.replace(/^(sk_(test|live)_[^_]*|thm|whs|adm)_/, '');

/**
 * Every 8 characters in a row of each secret, then the rest of the run of secret characters (a longer piece goes
 * whole): a secret split across two fields or cut short is still found. Escaped whole: an admin token may hold any
 * visible character.
 */
function piecesPattern(secrets: readonly string[]): RegExp | undefined {
  const literal = (piece: string) => piece.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
  const pieces = secrets.flatMap((s) => [...s.slice(7)].map((_, i) => literal(s.slice(i, i + 8))));
  return pieces.length ? new RegExp(`(?:${pieces.join('|')})[\\w.~+/=-]*`, 'gi') : undefined;
}

function looksSecret(text: string, known: RegExp | undefined): boolean {
  // Most decoded views are binary noise: no run of secret characters, nothing to look for.
  if (!/[\w.~+/=-]{4}/.test(text)) return false;
  if (known) known.lastIndex = 0;
  return PREFIX_RE.test(text) || (known?.test(text) ?? false);
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

// Where a view reads as text (printable ASCII once the NULs of UTF-16 are out), that text may itself be an encoding:
// one more level is decoded (base64 of base64, hex of base64, ...). A view's binary noise is skipped: the run that
// held the encoding may have begun with other text (a path before the value).
const READABLE_RE = /[\x20-\x7e]{12,}/g;

/** A decoded view as text: UTF-16 (LE or BE) read as bytes leaves a NUL beside each ASCII character. */
const textOf = (view: string) => view.replace(/\0/g, '');

/** Whether a decoded view carries a secret, as it reads or once more decoded (second-order encodings). */
function viewHides(view: string, known: RegExp | undefined): boolean {
  const text = textOf(view);
  if (looksSecret(text, known)) return true;
  return (text.match(READABLE_RE) ?? []).some((part) =>
    base64Views(part).some((inner) => looksSecret(textOf(inner), known)),
  );
}

/** Whether an encoded reading of `token` (not the token as written) carries a secret. */
function hidesSecret(token: string, known: RegExp | undefined): boolean {
  const plain = decodeEscapes(token);
  if (plain === token) return base64Views(token).some((view) => viewHides(view, known));
  return (
    looksSecret(plain, known) ||
    [token, plain].some((t) => base64Views(t).some((view) => viewHides(view, known)))
  );
}

// A list of character codes (`115,107,95,116,...`, or spaced): decimal 32 to 126, at least 8 of them.
const CODES_RE =
  /\b(?:[3-9]\d|1[01]\d|12[0-6])(?:\s*[,;]\s*|\s+)(?:(?:[3-9]\d|1[01]\d|12[0-6])(?:\s*[,;]\s*|\s+)){6,}(?:[3-9]\d|1[01]\d|12[0-6])\b/g;

/** `text` with each list of character codes that spells a secret replaced whole. */
function maskCodeLists(text: string, known: RegExp | undefined): string {
  return text.replace(CODES_RE, (run) =>
    looksSecret(String.fromCharCode(...(run.match(/\d+/g) ?? []).map(Number)), known) ? '[redacted]' : run,
  );
}

/**
 * The redaction of one owner's text: a PspClient's errors and log lines, a reference's error bodies and log lines.
 * It masks every secret of this API by its form (API keys `sk_test_...`/`sk_live_...`, signing secrets `thm_...`,
 * webhook secrets `whs_...`, admin tokens `adm_...`, bearer and basic credentials) and the owner's own secrets even
 * without their prefix, or any piece of 8 characters of them. A secret written plainly keeps its prefix
 * (`sk_test_***`); one hidden in an encoding (percent-encoded in any case, JSON or HTML escapes, base64, hex) takes
 * its whole run of text with it (`[redacted]`). An instance, not a registry: its secrets go when its owner does, and
 * one owner's redaction knows nothing of another's secrets.
 *
 * @example
 * const redact = new Redactor(['sk_test_ab12cd_S3cretPart0123']);
 * redact.text('echo S3cretPart0123'); // 'echo ***'
 */
export class Redactor {
  // The secrets live only in this pattern, a private field: util.inspect and JSON.stringify never show it.
  readonly #known: RegExp | undefined;

  /** `secrets`: the owner's own (an API key, a signing secret, ...); those under 8 characters past the prefix are found by their form only. */
  constructor(secrets: Iterable<string | undefined> = []) {
    const parts = [...secrets].flatMap((s) =>
      typeof s === 'string' && bare(s).length >= 8 ? [bare(s)] : [],
    );
    this.#known = piecesPattern([...new Set(parts)]);
  }

  /**
   * `text` with every secret masked.
   *
   * @example
   * redactor.text('bad key sk_test_abc123_s3cr3t'); // 'bad key sk_test_***'
   * redactor.text('key=sk%5Ftest%5Fabc123%5Fs3cr3t'); // '[redacted]'
   */
  text(text: string): string {
    const known = this.#known;
    // Cheap first: a code list needs a digit and a separator between codes.
    let out = /\d[\s,;]+\d/.test(text) ? maskCodeLists(text, known) : text;
    out = out.replace(TOKEN_RE, (token) => (hidesSecret(token, known) ? '[redacted]' : token));
    out = out.replace(SECRET_RE, `$1${MASK}`).replace(BEARER_RE, `$1${MASK}`);
    return known ? out.replace(known, MASK) : out;
  }

  /**
   * A copy of `value` with {@link Redactor.text} applied to every string in it (object keys included), through
   * plain objects and arrays; what a log line's meta goes through.
   *
   * @example
   * redactor.deep({ error: 'fetch failed: Bearer sk_test_ab12cd_x' }); // { error: 'fetch failed: Bearer ***' }
   */
  deep(value: unknown, depth = 6): unknown {
    if (typeof value === 'string') return this.text(value);
    if (value === null || typeof value !== 'object' || depth === 0) return value;
    if (Array.isArray(value)) return value.map((v) => this.deep(v, depth - 1));
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[this.text(k)] = this.deep(v, depth - 1);
    return out;
  }

  /**
   * A plain object of only the allow-listed headers of `headers` (see {@link SAFE_HEADERS}), each value redacted.
   *
   * @example
   * redactor.headers(new Headers({ authorization: 'Bearer sk_...', 'retry-after': '2' })); // { 'retry-after': '2' }
   */
  headers(headers: Headers): Record<string, string> {
    const out: Record<string, string> = {};
    // Headers iterates lower-cased names.
    for (const [name, value] of headers) if (SAFE_HEADERS.has(name)) out[name] = this.text(value);
    return out;
  }
}

/** The redaction that knows no secret of its own: every secret by its form only (text no client or reference owns). */
export const formsOnly: Redactor = new Redactor();

/**
 * {@link Redactor.text} of {@link formsOnly}: text that belongs to no client and no reference (a CLI's argument
 * errors, a value quoted into a message before its owner's redaction runs).
 *
 * @example
 * redactSecrets('bad key sk_test_abc123_s3cr3t'); // 'bad key sk_test_***'
 */
export function redactSecrets(text: string): string {
  return formsOnly.text(text);
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
