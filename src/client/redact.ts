// Secrets of this API have recognisable prefixes. Anything that may carry text from outside (a server message,
// a cause's message) passes through here before it reaches an error or a log line.
const SECRET_RE = /(sk_(?:test|live)_|thm_|whs_)[^\s"'`,;)}\]]+/g;
const BEARER_RE = /\b(Bearer\s+)[^\s"'`,;)}\]]+/gi;

/**
 * Replaces every API key (`sk_...`), signing secret (`thm_...`), webhook secret (`whs_...`) and bearer token in
 * `text` by its prefix and `***`.
 *
 * @example
 * redactSecrets('bad key sk_test_abc123_s3cr3t'); // 'bad key sk_test_***'
 */
export function redactSecrets(text: string): string {
  return text.replace(SECRET_RE, '$1***').replace(BEARER_RE, '$1***');
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
