/**
 * Field limits the spec leaves open ("not shown"); both the SDK and the reference enforce them. A length counts
 * characters as a user and JSON Schema's `maxLength` do: Unicode code points, not UTF-16 units (an emoji is one).
 * See docs/spec-decisions.md.
 */
export const LIMITS = {
  idempotencyKeyMax: 64,
  orderIdMax: 256,
  customerIdMax: 256,
  descriptionMax: 1024,
  urlMax: 2048,
  metadataMaxKeys: 50,
  metadataKeyMax: 40,
  metadataValueMax: 500,
  fullNameMax: 256,
  reasonMax: 1024,
} as const;

export const PAYMENT_METHODS = ['sbp', 'cards', 'tpay', 'sberpay', 'recurrent', 'any'] as const;
export const PAYMENT_STATUSES = [
  'pending',
  'processing',
  'succeeded',
  'failed',
  'expired',
  'cancelled',
  'refunded',
] as const;
export const REFUND_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export const PAYOUT_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export const PAYOUT_METHODS = ['payouts_sbp'] as const;
export const MODES = ['test', 'live'] as const;
/**
 * Currencies a payment may be made in (all with two decimal places of minor units): the reference refuses another,
 * and the OpenAPI document lists these as the field's enum. The one list.
 */
export const PAYMENT_CURRENCIES = ['RUB', 'USD', 'EUR'] as const;

export const PHONE_RE = /^\+7[0-9]{10}$/;
export const BANK_ID_RE = /^[0-9]{12}$/;
export const CURRENCY_RE = /^[A-Z]{3}$/;
/** An identifier (spec section 1: "Identifiers are UUIDv4 strings"), in either case. The one UUID rule. */
export const UUID_V4_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
/**
 * Spec 5.6 says only "string, at most 64 characters". What an HTTP header carries faithfully is visible ASCII with
 * spaces or tabs inside (a leading or trailing one is stripped in transit, so the server would see another key).
 * `[!-~]` is visible ASCII (0x21 to 0x7E), `[ -~\t]` the same with space and tab.
 */
export const IDEMPOTENCY_KEY_RE = /^[!-~]([ -~\t]{0,62}[!-~])?$/;
/** What {@link IDEMPOTENCY_KEY_RE} asks, as the reference words it (`Idempotency-Key: <rule>.`). */
export const IDEMPOTENCY_KEY_RULE =
  'must be 1 to 64 ASCII characters, visible ones or spaces inside (it travels in an HTTP header)';

/**
 * The form of an API key (spec 5.2): `sk_test_` or `sk_live_`, 6 letters or digits, `_` and the secret. The
 * client refuses a key of another form before sending; the reference tells "malformed" (not of this form) from
 * "unknown" (of this form, never issued).
 *
 * @example
 * API_KEY_RE.test('sk_test_abc123_secret'); // true: the form is right (whether it was issued is another matter)
 */
export const API_KEY_RE = /^sk_(test|live)_[A-Za-z0-9]{6}_[A-Za-z0-9._~+/=-]+$/;

/**
 * The form of a terminal's signing secret (spec 5.3): `thm_` and the secret, in the key's alphabet (URL-safe and
 * base64 characters), so the redaction always covers a whole secret, whatever text surrounds it.
 *
 * @example
 * SIGNING_SECRET_RE.test('thm_9f8e7d'); // true
 */
export const SIGNING_SECRET_RE = /^thm_[A-Za-z0-9._~+/=-]+$/;

/**
 * The form of a webhook endpoint's secret (spec 6.1): `whs_` and the secret, in the same alphabet as
 * {@link SIGNING_SECRET_RE}: it survives a header, a URL, a YAML file and a shell unquoted.
 *
 * @example
 * WEBHOOK_SECRET_RE.test('whs_0a1b2c'); // true
 */
export const WEBHOOK_SECRET_RE = /^whs_[A-Za-z0-9._~+/=-]+$/;

// The parts of WEBHOOK_URL_PATTERN. A source string (not a RegExp) because the OpenAPI document publishes the same
// text as the field's JSON Schema `pattern` (ECMA-262 without flags: case is spelled out as [Hh]; `[0-9]`, never
// `\d`, which other languages' regex engines read as any Unicode digit).
/** 0 to 255 without a leading zero (a WHATWG URL reads `010` as octal, another address than it says). */
const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
const IPV4 = `${OCTET}(?:\\.${OCTET}){3}`;
const H16 = '[0-9A-Fa-f]{1,4}';
const LS32 = `(?:${H16}:${H16}|${IPV4})`;
/** RFC 3986's IPv6address: the full form, then `::` after 0 to 7 pieces. */
const IPV6 = [
  `(?:${H16}:){6}${LS32}`,
  ...[0, 1, 2, 3, 4, 5, 6, 7].map(
    (m) =>
      `${m ? `(?:(?:${H16}:){0,${m - 1}}${H16})?` : ''}::${m <= 5 ? `(?:${H16}:){${5 - m}}${LS32}` : m === 6 ? H16 : ''}`,
  ),
].join('|');
/**
 * A host name of RFC 3986's reg-name in ASCII: labels of letters, digits, `-` and `_`. An internationalised name
 * comes in its punycode form (`xn--80aairftm.xn--p1ai`, not `магазин.рф`): spec 2.2's "string uri" is a URI,
 * not an IRI. The last label starts with a non-digit: a WHATWG URL reads a host ending in a number as an IPv4
 * address.
 */
const HOSTNAME = '(?:[A-Za-z0-9_-]+\\.)*[A-Za-z_-][A-Za-z0-9_-]*\\.?';
const PORT =
  '(?::(?:0*(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9][0-9]|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4}))?)?';
/** RFC 3986's pchar (unreserved, sub-delims, `:`, `@`, a percent-encoded octet) and `/`; with `?` for a query or fragment. */
const PCHAR = "[A-Za-z0-9._~!$&'()*+,;=:@/-]";
const PCT = '%[0-9A-Fa-f]{2}';
const PATH = `(?:/(?:${PCHAR}|${PCT})*)?`;
const QUERY = `(?:\\?(?:${PCHAR}|[?]|${PCT})*)?`;
const FRAGMENT = `(?:#(?:${PCHAR}|[?]|${PCT})*)?`;

/**
 * The form of a `webhook_url` and of a cabinet endpoint's URL, as the source text of a regex, and the whole rule
 * (`isWebhookUrl` asks this alone; the OpenAPI document publishes it as the field's `pattern`, so the document and
 * the service say the same): an RFC 3986 URI (spec 2.2's "string uri": ASCII only, so no IRI) whose scheme is
 * `http` or `https` in any case, `://`, a host (an ASCII host name, a dotted IPv4 address or a bracketed IPv6 one; no
 * user name or password), an optional port up to 65535, then RFC 3986's path, query and fragment (a `%` only as a
 * percent-encoded octet).
 */
/** What {@link WEBHOOK_URL_PATTERN} asks, as the SDK and the reference word it (`webhook_url: <rule>`). */
export const WEBHOOK_URL_RULE =
  'must be an absolute http(s) URL in ASCII (an international host as xn--), without a user name or password';

export const WEBHOOK_URL_PATTERN = `^[Hh][Tt][Tt][Pp][Ss]?://(?:${HOSTNAME}|${IPV4}|\\[(?:${IPV6})\\])${PORT}${PATH}${QUERY}${FRAGMENT}$`;
