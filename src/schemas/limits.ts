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

export const PHONE_RE = /^\+7\d{10}$/;
export const BANK_ID_RE = /^\d{12}$/;
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

// The parts of WEBHOOK_URL_RE. A source string (not a RegExp) because the OpenAPI document publishes the same text
// as the field's JSON Schema `pattern` (ECMA-262 without flags: case is spelled out as [Hh]).
/** 0 to 255 without a leading zero (a WHATWG URL reads `010` as octal, another address than it says). */
const OCTET = String.raw`(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)`;
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
 * What a host name's label is made of: ASCII letters, digits, `-` and `_`, and the Latin and Cyrillic letters
 * (U+00C0-U+024F, U+0400-U+052F but the combining marks and U+04C0), each of which a WHATWG URL maps through IDNA
 * (so `https://магазин.рф/` is a host name, as `https://xn--80aairftm.xn--p1ai/` is).
 */
const LETTER = String.raw`A-Za-z_\-\u00C0-\u024F\u0400-\u0482\u048A-\u04BF\u04C1-\u052F`;
/** The last label starts with a non-digit: a WHATWG URL reads a host ending in a number as an IPv4 address. */
const HOSTNAME = `(?:[${LETTER}0-9]+\\.)*[${LETTER}][${LETTER}0-9]*\\.?`;
const PORT = String.raw`(?::(?:0*(?:6553[0-5]|655[0-2]\d|65[0-4]\d\d|6[0-4]\d{3}|[1-5]\d{4}|\d{1,4}))?)?`;

/**
 * The form of a `webhook_url` and of a cabinet endpoint's URL, as the source text of a regex: `http` or `https` in
 * any case, `://`, a host (a host name, a dotted IPv4 address or a bracketed IPv6 one; no user name or password), an
 * optional port up to 65535, then a path, query or fragment without spaces or control characters. `isWebhookUrl`
 * asks this and that a WHATWG URL parses it (which adds one thing: a punycode `xn--` label must decode); the
 * OpenAPI document publishes this text as the field's `pattern`, so the document and the service say the same.
 */
export const WEBHOOK_URL_PATTERN = `^[Hh][Tt][Tt][Pp][Ss]?://(?:${HOSTNAME}|${IPV4}|\\[(?:${IPV6})\\])${PORT}(?:[/?#][^\\x00-\\x20\\x7F]*)?$`;
