import { fail } from './errors.js';
import { hmacSha256HexParts, timingSafeEqualString } from '../internal/hmac.js';
import { header, type RawWebhookBody, rawBody as toRaw, type WebhookHeaders } from './input.js';
import { SECRET_SOURCE, secretProblem } from '../internal/webhook-signature.js';
import { parseSignatureHeader } from './signature.js';
import type { WebhookEvent } from './types.js';

/** Options of {@link verifyWebhook}. */
export interface VerifyWebhookOptions {
  /** Largest accepted distance, in seconds, between `t=` and now, in either direction. Default 300 (spec 6.1). */
  tolerance?: number | undefined;
  /**
   * The receiver's current time: a `Date`, epoch milliseconds as `Date.now()` returns, or a function answering
   * either, asked at each verification (a test clock: `now: ref.clock.now` follows the reference's manual clock
   * through `advanceClock`). Default: `Date.now()`.
   */
  now?: Date | number | (() => Date | number) | undefined;
  /** Refuse legacy `sha256=` signatures (`v1_not_allowed`). Default false: v1 passes, for migration. */
  requireV2?: boolean | undefined;
}

/** One secret, or several during a rotation: any one of them verifies. */
export type WebhookSecret = string | readonly string[];

let decoder: InstanceType<typeof TextDecoder> | undefined;

/**
 * Verifies a webhook's `X-PSP-Signature` against the raw body and returns the parsed, typed event. Synchronous,
 * and the same in Node, Deno, Bun and edge runtimes.
 *
 * v2 headers (`t=..,v1=..,v2=..`) are checked first: any `v2=` must match some secret (constant-time compare),
 * `X-PSP-Timestamp`, when present, must equal `t`, and `t` must be within `tolerance` of now, past or future.
 * A header with `t=` but no `v2=` is refused rather than downgraded to its `v1=`. Legacy `sha256=` headers pass
 * unless `requireV2` is set; set it once no endpoint you receive from signs v1 (see docs/webhooks.md), since a
 * legacy header has no replay protection.
 *
 * @param rawBody - the body exactly as received (string, Buffer, Uint8Array, ArrayBuffer), never a parsed object.
 * @param headers - fetch `Headers`, Node's `req.headers`, or a plain record (any key case).
 * @param secret - the endpoint's `whs_...` secret as shown, or an array of them while rotating.
 * @throws {WebhookVerificationError} with a `reason`; never anything else.
 * @example
 * const event = verifyWebhook(await request.text(), request.headers, process.env.PSP_WEBHOOK_SECRET!);
 * if (event.event === 'payment.succeeded') await fulfil(event.data.order_id);
 */
export function verifyWebhook(
  rawBody: RawWebhookBody,
  headers: WebhookHeaders,
  secret: WebhookSecret,
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  const secrets = checkSecrets(secret);
  const { tolerance = 300, requireV2 = false } = options;
  if (!(typeof tolerance === 'number' && tolerance >= 0 && tolerance < Infinity))
    fail('invalid_options', 'tolerance must be seconds >= 0.');
  const nowMs = nowMillis(options.now);
  const body = toRaw(rawBody);
  const value = header(headers, 'x-psp-signature')?.trim();
  if (!value) fail('missing_signature', 'No X-PSP-Signature header.');
  const sig = parseSignatureHeader(value);

  if (sig.version === 'v1') {
    if (requireV2) fail('v1_not_allowed', 'sha256= (v1) signature refused: requireV2 is set.');
    matches(secrets, [body], sig.sigs);
  } else {
    matches(secrets, [`${sig.t}.`, body], sig.sigs);
    const ts = header(headers, 'x-psp-timestamp')?.trim();
    if (ts !== undefined && ts !== sig.t)
      fail('timestamp_mismatch', 'X-PSP-Timestamp differs from the signed t=.');
    const skew = nowMs / 1000 - Number(sig.t);
    if (Math.abs(skew) > tolerance)
      fail(
        'timestamp_outside_tolerance',
        `Signed ${Math.round(Math.abs(skew))} s ${skew > 0 ? 'ago' : 'ahead'}, beyond ${tolerance} s: a replay or a skewed clock.`,
      );
  }
  return parse(body);
}

// Every secret against every signature, with no early exit, so timing tells nothing about which one matched.
function matches(secrets: readonly string[], parts: Array<string | Uint8Array>, sigs: string[]): void {
  let ok = false;
  for (const s of secrets) {
    const expected = hmacSha256HexParts(s, parts);
    for (const given of sigs) ok = timingSafeEqualString(expected, given) || ok;
  }
  if (!ok)
    fail(
      'no_matching_signature',
      'No signature matches: wrong secret, or the body was altered (pass it unparsed).',
    );
}

function checkSecrets(secret: unknown): readonly string[] {
  const list = Array.isArray(secret) ? secret : [secret];
  if (!list.length || list.some((s) => s == null || s === ''))
    fail('missing_secret', `No webhook secret given: ${SECRET_SOURCE}.`);
  list.forEach((s, i) => {
    const problem = secretProblem(s);
    if (problem) fail('invalid_secret', `Webhook secret #${i} ${problem}.`);
  });
  return list;
}

function nowMillis(option: unknown): number {
  const now = option === undefined ? Date.now() : typeof option === 'function' ? option() : option;
  const ms = now instanceof Date ? now.getTime() : now;
  // Below 1e11 (March 1973 in ms) the number is Unix seconds passed by mistake.
  if (!(typeof ms === 'number' && ms >= 1e11 && ms < Infinity))
    fail('invalid_options', 'now must be a Date or epoch ms (or a function answering one), not seconds.');
  return ms;
}

function parse(body: string | Uint8Array): WebhookEvent {
  let v: Record<string, unknown> | null;
  try {
    // Not `fatal`: the bytes are authentic by now, and the non-fatal decoder is several times faster on ASCII.
    decoder ??= new TextDecoder();
    v = JSON.parse(typeof body === 'string' ? body : decoder.decode(body));
  } catch {
    return fail('invalid_json', 'Signed body is not JSON.');
  }
  const data = v?.data;
  if (
    typeof v?.id !== 'string' ||
    typeof v.event !== 'string' ||
    typeof data !== 'object' ||
    !data ||
    Array.isArray(data)
  )
    fail('invalid_payload', 'Signed body is not a webhook envelope {id, event, data}.');
  return v as unknown as WebhookEvent;
}
