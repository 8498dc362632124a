import { CODE, ERROR_CODES, type ErrorCode } from '../../schemas/errors.js';
import { DomainError } from '../domain/errors.js';
import { formsOnly, type Redactor } from '../../internal/redact.js';

/** A JSON answer with the reference's standard headers. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return jsonText(status, JSON.stringify(body), headers);
}

/** {@link json} of a body already serialised (`text` must be JSON). */
export function jsonText(status: number, text: string, headers: Record<string, string> = {}): Response {
  return new Response(text, {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
  });
}

// The code of each error answer made here, so that a reader after the app (the request journal) knows it without
// cloning and parsing the body: a clone per refused request cost 60 MB of RSS over 10,000 refusals.
const codes = new WeakMap<Response, string>();

/** The spec error code of an answer {@link errorResponse} made, or null for any other answer. */
export function errorCodeOf(response: Response): string | null {
  return codes.get(response) ?? null;
}

/**
 * The spec's error body (2.9) for a status and code. Secrets in the message and in the code (a key pasted into a
 * path or a field name, in any encoding; a fault rule's `code`, which a key fits) are masked by `redact`, the
 * reference's own redaction (`AppDeps.redact`, which also knows its startup credentials without their prefix):
 * error bodies end up in logs.
 */
export function errorResponse(
  status: number,
  code: string,
  message: string,
  headers: Record<string, string>,
  redact: Redactor,
): Response {
  const shown = redact.text(code);
  const response = json(status, { error: { code: shown, message: redact.text(message) } }, headers);
  codes.set(response, shown);
  return response;
}

/**
 * The error body of `code` at its status from the table of codes, for an answer made without a thrown
 * {@link DomainError} (the 404 and 405 of an unknown path, an adapter's own refusals). Its message is the
 * reference's own words (a caller's value only through `quote`), so the forms of secrets are all it masks.
 *
 * @example
 * return refusalResponse(CODE.not_found, 'No such endpoint.');
 */
export function refusalResponse(
  code: ErrorCode,
  message: string,
  headers?: Record<string, string>,
): Response {
  return errorResponse(ERROR_CODES[code].status, code, message, headers ?? {}, formsOnly);
}

/**
 * Maps a thrown value to an answer: a DomainError to its status and body, anything else to a 500 (a bug), whose
 * stack goes to `log`; both redacted by `redact` (see {@link errorResponse}).
 */
export function toResponse(err: unknown, redact: Redactor, log?: (line: string) => void): Response {
  if (err instanceof DomainError)
    return errorResponse(err.status, err.code, err.message, err.headers ?? {}, redact);
  log?.(redact.text(`internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`));
  return refusalResponse(CODE.internal_error, 'The reference failed to answer this request.');
}
