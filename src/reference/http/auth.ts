import { hmacSha256Hex, timingSafeEqualString } from '../../internal/hmac.js';
import { CODE } from '../../schemas/errors.js';
import type { MerchantBlock } from '../domain/accounts.js';
import type { Domain } from '../domain/core.js';
import { refuse } from '../domain/errors.js';
import { isAllowed } from '../domain/ip-allow.js';
import type { Caller } from '../domain/validate.js';

const SIGNATURE_RE = /^sha256=([0-9a-f]{64})$/;

/** The bearer token of a request, or why there is none. Never echoes the header. */
export function bearer(request: Request): string {
  const value = request.headers.get('authorization');
  if (value === null || value.trim() === '') {
    throw refuse(CODE.unauthorized, 'Missing Authorization header: send "Authorization: Bearer <API key>".');
  }
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(value);
  if (!m) throw refuse(CODE.unauthorized, 'The Authorization header must be "Bearer <API key>".');
  return m[1]!;
}

/**
 * The merchant behind a request's API key, looked up without section 5's effects (no rate-limit slot, no
 * allow-list): for a fault rule's match (a fault stands for the network in front of the service, so a `before` fault
 * happens before the service counts or judges anything) and the journal's `merchant_id` of a request section 5 did
 * not see. A request without a valid key has no merchant.
 */
export function keyMerchant(domain: Domain, request: Request): string | undefined {
  try {
    const found = domain.accounts.authenticate(bearer(request));
    return found.kind === 'ok' ? found.key.merchantId : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `token` is the admin token, compared in constant time. */
export function isAdminToken(token: string, adminToken: string): boolean {
  return timingSafeEqualString(token, adminToken);
}

/** The address the IP allow-list judges: the socket's, or with `trustProxy` the last X-Forwarded-For hop. */
export function clientAddress(
  request: Request,
  socketAddress: string | undefined,
  trustProxy: boolean,
): string | undefined {
  if (trustProxy) {
    const xff = request.headers.get('x-forwarded-for');
    // The rightmost entry is the one our own proxy appended; entries left of it are the client's to forge.
    const last = xff
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .pop();
    if (last) return last;
  }
  return socketAddress;
}

/**
 * Section 5 for the public API, in order: the key (401), the IP allow-list (403 `ip_not_allowed`), the rate limit
 * (429), live mode (403 `live_not_enabled`). Returns the caller; `known` hears of it as soon as the key is found, so
 * that a later refusal is still journaled under its merchant.
 */
export function authenticate(
  domain: Domain,
  request: Request,
  address: string | undefined,
  adminToken: string,
  known?: (caller: Caller) => void,
): Caller {
  const token = bearer(request);
  // A merchant admin token has the admin token's form: both are for the control surface.
  if (isAdminToken(token, adminToken) || token.startsWith('adm_')) {
    throw refuse(CODE.unauthorized, 'An admin token is for /_cabinet and /_simulator only; use an API key.');
  }
  const found = domain.accounts.authenticate(token);
  if (found.kind !== 'ok') {
    const why = {
      malformed: 'The API key is malformed: keys look like sk_test_xxxxxx_... or sk_live_xxxxxx_....',
      unknown:
        'The API key is not recognised: it has the form of a key, but this service never issued it (copy the key the cabinet showed).',
      revoked: 'The API key has been revoked.',
    }[found.kind];
    throw refuse(CODE.unauthorized, why);
  }
  const caller = domain.caller(found.key);
  known?.(caller);
  if (!isAllowed(caller.merchant.ipAllowList, address)) {
    throw refuse(CODE.ip_not_allowed, 'The request comes from an address outside the IP allow-list.');
  }
  const admission = domain.rateLimiter.admit(caller.merchant.id, caller.merchant.rateLimit);
  if (!admission.ok) {
    const s = admission.retryAfterSeconds;
    throw refuse(
      CODE.rate_limited,
      `Merchant rate limit of ${caller.merchant.rateLimit.limit} requests per ${caller.merchant.rateLimit.window_seconds} s exceeded; retry in ${s} s.`,
      { 'retry-after': String(s) },
    );
  }
  if (found.key.mode === 'live' && !caller.merchant.liveEnabled) {
    throw refuse(CODE.live_not_enabled, 'Live mode is not activated for this merchant; use a test key.');
  }
  return caller;
}

/**
 * Section 5.4: a signature, when sent, must match (400 `invalid_signature`); when the terminal requires one, it must
 * be sent (400 `signature_required`). The HMAC covers the raw body bytes, empty for a GET.
 */
export function checkSignature(caller: Caller, request: Request, body: Uint8Array): void {
  const sent = request.headers.get('x-psp-signature');
  if (sent === null) {
    if (caller.terminal.requireSignature) {
      throw refuse(
        CODE.signature_required,
        'This terminal requires signed requests: send X-PSP-Signature: sha256=<HMAC-SHA256 of the body>.',
      );
    }
    return;
  }
  const m = SIGNATURE_RE.exec(sent.trim());
  if (!m) {
    throw refuse(
      CODE.invalid_signature,
      'X-PSP-Signature must be "sha256=" and 64 lowercase hex characters.',
    );
  }
  const expected = hmacSha256Hex(caller.terminal.signingSecret, body);
  if (!timingSafeEqualString(m[1]!, expected)) {
    throw refuse(CODE.invalid_signature, 'X-PSP-Signature does not match the request body.');
  }
}

const BLOCKED: Record<MerchantBlock, string> = {
  aml_blocked: 'Access is forbidden: the merchant is blocked by AML checks.',
  forbidden_purpose: 'Access is forbidden: the merchant is blocked for a forbidden purpose.',
};

/** Spec 7: a blocked merchant can move no money (403 with the block as its code). */
export function checkBlock(caller: Caller): void {
  const block = caller.merchant.block;
  if (block !== null) throw refuse(block, BLOCKED[block]);
}
