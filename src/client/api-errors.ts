import { CLIENT_CODES, SDK_CODES } from '../schemas/errors.js';
import { hideHeaders, named, PspError, PspResponseError } from './base-errors.js';
import { release } from './release.js';
import { formsOnly } from '../internal/redact.js';

/** What {@link createApiError} and every API error constructor take. */
export interface ApiErrorArgs {
  status: number;
  /** The parsed JSON body, or its text when it was not JSON, or undefined. */
  body: unknown;
  headers: Headers;
  idempotencyKey?: string | undefined;
  attempts: number;
  /** @internal The SDK's own message, for a refusal it made itself (status 0: nothing was sent). */
  message?: string | undefined;
}

/**
 * The message of an answer that redirects (or of a fetch that followed one): it names the target's host only,
 * since a full URL may carry a token.
 *
 * @example
 * redirectMessage(307, 'https://evil.example/x'); // 'HTTP 307: a redirect to evil.example, not followed (...)'
 */
export function redirectMessage(status: number, location: string | null): string {
  let host = 'an address the browser hides';
  if (location) {
    try {
      host = new URL(location, 'http://same.invalid').host.replace('same.invalid', 'the same host');
    } catch {
      host = 'an unreadable Location';
    }
  }
  return `HTTP ${status}: a redirect to ${host}, not followed (the API never redirects: check baseUrl)`;
}

/**
 * The refusal of a request that a middleware pointed outside `baseUrl` (its origin or its path): the key, the
 * signature and the body go to `baseUrl` only, so it is refused before they are added, as a redirect to another
 * host is (`unexpected_redirect`), with status 0 since nothing was sent. The message names the host only.
 *
 * @example
 * throw originRefused('https://evil.example/x', { attempts: 1 });
 */
export function originRefused(
  to: string,
  call: { attempts: number; idempotencyKey?: string | undefined },
): PspApiError {
  return new PspApiError({
    status: 0,
    body: undefined,
    headers: new Headers(),
    attempts: call.attempts,
    idempotencyKey: call.idempotencyKey,
    message: `A middleware sent the request to ${new URL(to).host}: refused, unsent (the key goes to baseUrl only)`,
  });
}

function readBody(
  status: number,
  body: unknown,
  headers: Headers,
  own?: string,
): { code: string; message: string } {
  // A 3xx (or the browser's opaque redirect, status 0) comes from a proxy or a wrong baseUrl, not from the API:
  // its body is not the API's.
  if (status < 200 || (status >= 300 && status < 400))
    return {
      code: SDK_CODES.unexpected_redirect,
      message: own ?? redirectMessage(status, headers.get('location')),
    };
  const err = (body as { error?: { code?: unknown; message?: unknown } | undefined } | null)?.error;
  const text = typeof body === 'string' ? body.trim().slice(0, 200) : '';
  return {
    code:
      typeof err?.code === 'string' && err.code
        ? err.code
        : (CODE_OF_STATUS[status >= 500 ? 500 : status] ?? SDK_CODES.http_error),
    message:
      (typeof err?.message === 'string' && err.message) ||
      (text ? `HTTP ${status}: ${text}` : `HTTP ${status}`),
  };
}

/**
 * An HTTP error answer of the API (spec section 7). Subclasses exist per status and per code; branch with
 * `instanceof`, or on `code`.
 *
 * @example
 * catch (err) { if (err instanceof PspApiError) console.log(err.status, err.code, err.requestId); }
 */
export class PspApiError extends PspError {
  static {
    named(PspApiError, 'PspApiError');
  }

  /** HTTP status. */
  declare readonly status: number;
  /** The spec's machine-readable code; when the body carries none, one derived from the status (e.g. `not_found`). */
  declare readonly code: string;
  /** Response headers, each value redacted. Shown through an allowlist in `toJSON()` and `util.inspect`. */
  declare readonly headers: Headers;
  /** The `Idempotency-Key` the request carried, if any: resend with it to stay exactly-once. */
  declare idempotencyKey?: string;
  /** How many attempts were made (1 = no retry). */
  declare attempts: number;
  /** The server's request id (`X-Request-Id`), when it sends one. */
  declare readonly requestId?: string;

  constructor(args: ApiErrorArgs) {
    const { code, message } = readBody(args.status, args.body, args.headers, args.message);
    super(message);
    this.status = args.status;
    // The server chooses the code and the request id: an echo of the Authorization header must not survive.
    this.code = formsOnly.text(code);
    const headers = hideHeaders(this, args.headers, formsOnly);
    this.idempotencyKey = args.idempotencyKey;
    this.attempts = args.attempts;
    const rid = headers.get('x-request-id') ?? headers.get('request-id');
    if (rid) this.requestId = rid;
  }
}

/** 400 `bad_request`: the server refused the request as invalid. @example err instanceof BadRequestError */
export class BadRequestError extends PspApiError {
  static {
    named(BadRequestError, 'BadRequestError');
  }
}
/** 401: the API key is unknown, revoked or malformed. @example err instanceof AuthenticationError */
export class AuthenticationError extends PspApiError {
  static {
    named(AuthenticationError, 'AuthenticationError');
  }
}
/** 403: access forbidden; see the code subclasses. @example err instanceof PermissionDeniedError */
export class PermissionDeniedError extends PspApiError {
  static {
    named(PermissionDeniedError, 'PermissionDeniedError');
  }
}
/** 404: no such object for this merchant. @example err instanceof NotFoundError */
export class NotFoundError extends PspApiError {
  static {
    named(NotFoundError, 'NotFoundError');
  }
}
/** 409: the object's state forbids the operation. @example err instanceof ConflictError */
export class ConflictError extends PspApiError {
  static {
    named(ConflictError, 'ConflictError');
  }
}
/** 422: e.g. a refund above the balance, or a payout route not configured. @example err instanceof UnprocessableEntityError */
export class UnprocessableEntityError extends PspApiError {
  static {
    named(UnprocessableEntityError, 'UnprocessableEntityError');
  }
}
/** 5xx: a server failure (retried automatically, 501 aside, before this is thrown). @example err instanceof InternalServerError */
export class InternalServerError extends PspApiError {
  static {
    named(InternalServerError, 'InternalServerError');
  }
}

/**
 * 429: the merchant's rate limit. `retryAfter` is the server's `Retry-After` in seconds (undefined if absent).
 * Thrown after retries are spent, or at once when the wait would outlast the call's deadline.
 *
 * @example
 * catch (err) { if (err instanceof RateLimitError) await sleep((err.retryAfter ?? 1) * 1000); }
 */
export class RateLimitError extends PspApiError {
  static {
    named(RateLimitError, 'RateLimitError');
  }

  declare readonly retryAfter?: number;
  constructor(args: ApiErrorArgs & { retryAfter?: number | undefined }) {
    super(args);
    const ra = args.retryAfter ?? parseRetryAfter(args.headers.get('retry-after'));
    if (ra !== undefined) this.retryAfter = Math.max(0, ra / 1000);
  }
}

/** 409 `idempotent_conflict`: the Idempotency-Key was used before with a different body. @example err instanceof IdempotentConflictError */
export class IdempotentConflictError extends ConflictError {
  static {
    named(IdempotentConflictError, 'IdempotentConflictError');
  }
}
/** 409 `not_pending`: cancel of a payment that is no longer pending. @example err instanceof NotPendingError */
export class NotPendingError extends ConflictError {
  static {
    named(NotPendingError, 'NotPendingError');
  }
}
/** 403 `live_not_enabled`: a live key while live mode is off. @example err instanceof LiveNotEnabledError */
export class LiveNotEnabledError extends PermissionDeniedError {
  static {
    named(LiveNotEnabledError, 'LiveNotEnabledError');
  }
}
/** 403 `ip_not_allowed`: the source address is outside the cabinet's allow-list. @example err instanceof IpNotAllowedError */
export class IpNotAllowedError extends PermissionDeniedError {
  static {
    named(IpNotAllowedError, 'IpNotAllowedError');
  }
}
/** 403 `aml_blocked`. @example err instanceof AmlBlockedError */
export class AmlBlockedError extends PermissionDeniedError {
  static {
    named(AmlBlockedError, 'AmlBlockedError');
  }
}
/** 403 `forbidden_purpose`. @example err instanceof ForbiddenPurposeError */
export class ForbiddenPurposeError extends PermissionDeniedError {
  static {
    named(ForbiddenPurposeError, 'ForbiddenPurposeError');
  }
}
/**
 * `signature_required` or `invalid_signature`. The spec files these under 400 and, for `signature_required`,
 * also 401; this class is chosen by code whatever the status, so it extends {@link BadRequestError} and
 * `status` says which status the server used.
 *
 * @example
 * catch (err) { if (err instanceof SignatureError) console.error('check signingSecret', err.code); }
 */
export class SignatureError extends BadRequestError {
  static {
    named(SignatureError, 'SignatureError');
  }
}

type ApiErrorClass = new (args: ApiErrorArgs) => PspApiError;

// The classes a code of the table (src/schemas/errors.ts) can name, found there by their `name`.
const CLASSES: ApiErrorClass[] = [
  SignatureError,
  LiveNotEnabledError,
  IpNotAllowedError,
  AmlBlockedError,
  ForbiddenPurposeError,
  IdempotentConflictError,
  NotPendingError,
];

// The class when no code picks one, by status.
const CLASS_OF_STATUS: Record<number, ApiErrorClass> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: UnprocessableEntityError,
  429: RateLimitError,
};

// From the table: the class of each code that has its own, and the code an answer without one gets by status.
// No prototype: a code such as `constructor` must pick no class.
const BY_CODE: Record<string, ApiErrorClass> = Object.create(null);
const CODE_OF_STATUS: Record<number, string> = {};
for (const [code, row] of Object.entries(CLIENT_CODES)) {
  if (row.class) BY_CODE[code] = CLASSES.find((cls) => cls.name === row.class)!;
  if (row.ofStatus) CODE_OF_STATUS[row.status] = code;
}

/**
 * Builds the typed error for an HTTP error answer: by the body's `code` first, by status second, `PspApiError`
 * for any other status. A body that is not the spec's error JSON still gives a typed error.
 *
 * @example
 * const err = createApiError({ status: 409, body: { error: { code: 'not_pending', message: '...' } }, headers: new Headers(), attempts: 1 });
 * err instanceof NotPendingError; // true
 */
export function createApiError(args: ApiErrorArgs): PspApiError {
  const code = (args.body as { error?: { code?: unknown } | undefined } | null)?.error?.code;
  const byCode = typeof code === 'string' ? BY_CODE[code] : undefined;
  const Cls =
    byCode ?? CLASS_OF_STATUS[args.status] ?? (args.status >= 500 ? InternalServerError : PspApiError);
  return new Cls(args);
}

/**
 * The typed error for an HTTP error answer, its body read as JSON, else as text (else none). The one reader of
 * error answers: the transport and the event stream both use it.
 *
 * @example
 * throw await apiErrorOf(response, { attempts: 1 });
 */
export async function apiErrorOf(
  res: Response,
  call: { idempotencyKey?: string | undefined; attempts: number; timeout?: number | undefined },
): Promise<PspApiError> {
  let body: unknown;
  try {
    // Within the call's timeout and the size cap: a stalled or endless error body still gives its typed error.
    body = await readText(res, call.timeout);
    body = JSON.parse(body as string);
  } catch {
    // Not JSON: the text stays the body (unread: undefined).
  }
  return createApiError({
    status: res.status,
    body,
    headers: res.headers,
    idempotencyKey: call.idempotencyKey,
    attempts: Math.max(1, call.attempts),
  });
}

/** What {@link readText} throws when the body outlasts its time. */
export const BODY_TIMEOUT = Symbol('body timeout');
/** The longest answer read, in characters: the API's are a few KiB; a hostile or broken server must not fill the memory. */
const MAX_BODY = 8 << 20;

/**
 * The body as text, within `ms` (ky's timeout ends when the headers arrive, and a server that stalls mid-body must
 * not hang the call) and within 8 Mi characters (a {@link PspResponseError} beyond). Whatever ends the read early cancels the
 * body, so the connection is freed and nothing more is buffered.
 *
 * @example
 * const text = await readText(response, 60_000);
 */
export async function readText(response: Response, ms?: number, idempotencyKey?: string): Promise<string> {
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let late = false;
  const timer =
    ms &&
    setTimeout(() => {
      late = true;
      void release(reader);
    }, ms);
  try {
    while (reader) {
      const { done, value } = await reader.read();
      if (late) throw BODY_TIMEOUT;
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (text.length > MAX_BODY)
        throw new PspResponseError('The answer is over 8 MiB', response.status, [], idempotencyKey);
    }
    return text + decoder.decode();
  } finally {
    clearTimeout(timer);
    void release(reader);
  }
}

// An HTTP-date (RFC 9110 5.6.7): IMF-fixdate, or the obsolete RFC 850 and asctime forms; all begin with a day name.
const HTTP_DATE_RE = /^[A-Z][a-z]{2,8},? [\w -]+ \d\d:\d\d:\d\d (GMT|\d{4})$/;

/**
 * Milliseconds to wait from a `Retry-After` value (RFC 9110 10.2.3): delta-seconds (digits only), or an HTTP-date
 * relative to `now`. Anything else (`-5`, `1e3`, `0x10`, `1.5`, `NaN`) is treated as absent: undefined. The one
 * reader of `Retry-After` in the SDK: the retry delay, the fail-fast rule, `RateLimitError.retryAfter` and the
 * event stream all use it.
 *
 * @example
 * parseRetryAfter('2'); // 2000 (now defaults to Date.now())
 * parseRetryAfter('1e3'); // undefined
 */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  const v = value?.trim() ?? '';
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  if (!HTTP_DATE_RE.test(v)) return undefined;
  // asctime carries no zone, and means GMT.
  const at = Date.parse(v.endsWith('GMT') ? v : `${v} GMT`);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
