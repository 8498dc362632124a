import * as z from 'zod/mini';
import { UUID_V4_RE, WEBHOOK_URL_PATTERN } from './limits.js';
import { parseOwn } from './issues.js';

/**
 * How a response schema treats drift from the spec.
 *
 * - `tolerant` (the SDK's default): unknown fields and enum values pass through and a missing
 *   optional field is not an error, so a server that grows never breaks a deployed client.
 * - `strict` (contract tests): any drift from the spec, in either direction, fails.
 */
export interface SchemaMode {
  strict: boolean;
}

type AnySchema = z.ZodMiniType;

/**
 * An object: strict mode rejects unknown keys, tolerant mode accepts them. The schemas validate; what the SDK
 * hands out is the value it checked (they transform nothing), so unknown keys reach the caller in either mode,
 * and tolerant mode uses zod's plain object, which skips copying them (and zod's catch-all machinery).
 */
export function obj<S extends z.core.$ZodLooseShape>(m: SchemaMode, shape: S) {
  // Typed as the strict variant: the types users see are the spec's, exactly.
  return (m.strict ? z.strictObject(shape) : z.object(shape)) as ReturnType<typeof z.strictObject<S>>;
}

/** A field the spec lists and the service always sends. Tolerant mode accepts it missing or null. */
export function present<T extends AnySchema>(m: SchemaMode, s: T): T {
  return (m.strict ? s : lax(s)) as unknown as T;
}

/** Tolerant mode's form of every field: missing and null both pass. */
const lax = (s: AnySchema) => z.optional(z.nullable(s));

/** A field the service always sends, possibly `null` (e.g. `captured_at` before capture). */
export function nullable<T extends AnySchema>(m: SchemaMode, s: T) {
  return (m.strict ? z.nullable(s) : lax(s)) as unknown as z.ZodMiniNullable<T>;
}

/** A field the service may leave out. */
export function optional<T extends AnySchema>(m: SchemaMode, s: T) {
  return (m.strict ? z.optional(s) : lax(s)) as unknown as z.ZodMiniOptional<T>;
}

// JSON's primitive types, checked with `typeof` in a custom schema: zod/mini's string, number and boolean classes
// (coercion, patterns, format hooks) cost the client bundle more than the rule. A type mismatch aborts, as zod's
// own type issue does, so no later rule runs on a value of the wrong type. Types infer exactly as zod's.

/** A string. */
export const str = (message = 'must be a string') => z.custom<string>((v) => typeof v === 'string', message);

/** A finite number (zod's `z.number()` rule: NaN and the infinities are refused). */
export const num = (message = 'must be a finite number') =>
  z.custom<number>((v) => typeof v === 'number' && Number.isFinite(v), message);

/** A boolean. */
export const bool = (message = 'must be a boolean') =>
  z.custom<boolean>((v) => typeof v === 'boolean', message);

/**
 * A string among `values`, stated with a refine rather than `z.enum` (whose machinery costs the client bundle
 * more than the rule is worth). The message lists the values, as zod's enum issue did.
 */
export function oneOf<const T extends readonly [string, ...string[]]>(
  values: T,
  message = `must be one of ${values.join(', ')}`,
) {
  return str(message).check(
    z.refine((v) => (values as readonly string[]).includes(v), message),
  ) as unknown as z.ZodMiniEnum<{
    [K in T[number]]: K;
  }>;
}

/** A closed enum in strict mode; any string in tolerant mode, so a new value does not break old clients. */
export function openEnum<const T extends readonly [string, ...string[]]>(m: SchemaMode, values: T) {
  return (m.strict ? oneOf(values) : str()) as unknown as z.ZodMiniEnum<{ [K in T[number]]: K }>;
}

/**
 * An array whose every element passes `element`; an element's issues are reported at `<index>.<path>`, as
 * `z.array` does. Built on a custom schema because `z.array` brings zod's size-cap machinery with it (0.4 KB
 * gzip of the client bundle) for rules we never set. The output is the array as given: the SDK's schemas
 * transform nothing, so it equals what `z.array` would have copied.
 */
export function arrayOf<T extends AnySchema>(element: T) {
  return z.custom<z.output<T>[]>(Array.isArray, 'must be an array').check(
    z.check<z.output<T>[]>((ctx) => {
      const list = ctx.value as unknown;
      if (!Array.isArray(list)) return;
      list.forEach((item, i) => {
        const r = parseOwn(element, item);
        if (!r.success)
          for (const issue of r.error.issues)
            ctx.issues.push({ ...issue, input: item, path: [i, ...issue.path] } as z.core.$ZodRawIssue);
      });
    }),
  );
}

/** Limits of a string map: key length, value length, key count. */
export interface MapLimits {
  key: number;
  value: number;
  keys: number;
}

/**
 * The length of `v` in Unicode code points, as JSON Schema's `maxLength` and a user count characters (an emoji is
 * one, not two UTF-16 units). A lone surrogate counts one.
 *
 * @example
 * codePoints('😀'.repeat(3)); // 3 ('😀'.repeat(3).length is 6)
 */
export function codePoints(v: string): number {
  let n = v.length;
  for (let i = 0; i < v.length - 1; i++) {
    const c = v.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = v.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** At most `max` code points; a string of at most `max` UTF-16 units is within it without counting. */
const within = (v: string, max: number) => v.length <= max || (v.length <= 2 * max && codePoints(v) <= max);

const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (typeof v !== 'object' || v === null) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/**
 * An object of string values (`metadata`), checked by hand instead of with `z.record` (which costs the client
 * bundle 0.6 KB gzip). Each bad entry is an issue at `<field>.<key>`, so the message names the key; an object
 * beyond `limits.keys` keys is one issue at the field. Same acceptance as the record it replaces.
 */
export function stringMap(limits?: MapLimits) {
  return z.custom<Record<string, string>>(isPlainObject, 'must be an object of string values').check(
    z.check<Record<string, string>>((ctx) => {
      const map = ctx.value as unknown;
      if (!isPlainObject(map)) return;
      const keys = Object.keys(map);
      for (const key of keys) {
        const v = map[key];
        const message =
          typeof v !== 'string'
            ? 'values must be strings'
            : limits && !within(key, limits.key)
              ? `keys must be at most ${limits.key} characters`
              : limits && !within(v, limits.value)
                ? `values must be at most ${limits.value} characters`
                : '';
        if (message) ctx.issues.push({ code: 'custom', input: v, path: [key], message });
      }
      if (limits && keys.length > limits.keys) {
        ctx.issues.push({ code: 'custom', input: map, message: `must have at most ${limits.keys} keys` });
      }
    }),
  );
}

// zod's uuidv4/iso.datetime/int/url builders each pull their own machinery (~3 KB gzip together) into the client
// bundle, whose budget is 20 KB; a regex or a refine states the same rule at a fraction of the cost.
const UTC_TIMESTAMP_RE = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?Z$/;

/** RFC 3339 in UTC, and a date that exists (no 30 February): the date survives a round trip through `Date`. */
export function isUtcTimestamp(v: string): boolean {
  if (!UTC_TIMESTAMP_RE.test(v)) return false;
  const t = Date.parse(v);
  return !Number.isNaN(t) && new Date(t).toISOString().slice(0, 19) === v.slice(0, 19);
}

/** `v` parsed as an absolute URL, as WHATWG URL parses it, or undefined. */
function parseUrl(v: string): URL | undefined {
  try {
    return new URL(v);
  } catch {
    return undefined;
  }
}

const HTTP = /^https?:$/;

/** An absolute http(s) URL, as WHATWG URL parses it. */
export function isHttpUrl(v: string): boolean {
  return HTTP.test(parseUrl(v)?.protocol ?? '');
}

let webhookUrlRe: RegExp | undefined;

/**
 * An absolute http(s) URI with no user name or password in it: where the service POSTs webhooks (credentials in a
 * URL would be dropped, or logged with it). The rule is {@link WEBHOOK_URL_PATTERN} alone, the text the OpenAPI
 * document publishes, so the document and the service accept the same strings: a URI (ASCII; an international
 * host in its `xn--` form), not an IRI. A punycode label that does not decode is a name like any other that no
 * DNS answers: its deliveries fail, and the delivery log says why.
 *
 * @example
 * isWebhookUrl('https://shop.example/psp'); // true
 * isWebhookUrl('https://user:pass@shop.example/psp'); // false
 * isWebhookUrl('https://магазин.рф/psp'); // false: https://xn--80aairftm.xn--p1ai/psp
 */
export function isWebhookUrl(v: string): boolean {
  webhookUrlRe ??= new RegExp(WEBHOOK_URL_PATTERN);
  return webhookUrlRe.test(v);
}

/**
 * An absolute URI, as spec 2.2's "string uri" asks of `return_url`: a scheme and the rest, as WHATWG URL parses
 * it, so an app's own scheme (`shopapp://orders/42`) passes as `https:` does. The schemes a browser runs rather
 * than opens do not: a return_url is where the buyer's browser is sent.
 *
 * @example
 * isAbsoluteUri('shopapp://orders/42'); // true
 * isAbsoluteUri('javascript:alert(1)'); // false
 */
export function isAbsoluteUri(v: string): boolean {
  const url = parseUrl(v);
  return !!url && !/^(javascript|vbscript|data):$/.test(url.protocol);
}

// zod's regex, maxLength and minimum checks each bring their own check class (with the string-format machinery
// behind regex) into the client bundle; a refine states each rule with the same message for less.

/** A string matching `re` (a non-global regex). */
export const matches = (re: RegExp, message: string) => z.refine<string>((v) => re.test(v), message);

/**
 * A string of at most `max` characters, counted in code points ({@link codePoints}) as the OpenAPI document's
 * `maxLength` counts: the one length rule of every length-limited string of the wire.
 */
export const maxChars = (max: number, message = `must be at most ${max} characters`) =>
  z.refine<string>((v) => within(v, max), message);

/** A number of at least `min`. */
export const atLeast = (min: number, message: string) => z.refine<number>((v) => v >= min, message);

export function uuid(m: SchemaMode) {
  return m.strict ? str().check(matches(UUID_V4_RE, 'must be a UUIDv4')) : str();
}

/** RFC 3339 date-time in UTC (`Z`), as section 1 of the spec requires. */
export function timestamp(m: SchemaMode) {
  return m.strict ? str().check(z.refine(isUtcTimestamp, 'must be an RFC 3339 date-time in UTC')) : str();
}

/** A whole number of minor units within the safe-integer range (beyond it JSON numbers lose precision). */
export function minorUnits(message = 'must be a safe integer') {
  return num(message).check(z.refine(Number.isSafeInteger, message));
}

/** Memoises one build per mode: schemas are built on first use, not at import (cold start matters). */
export function perMode<T>(build: (m: SchemaMode) => T): (strict?: boolean) => T {
  let tolerant: T | undefined;
  let strict: T | undefined;
  return (isStrict = false) => {
    if (isStrict) {
      strict ??= build({ strict: true });
      return strict;
    }
    tolerant ??= build({ strict: false });
    return tolerant;
  };
}
