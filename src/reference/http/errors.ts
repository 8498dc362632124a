import { DomainError } from '../domain/errors.js';

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

// Anything shaped like a secret that reached a message (a key pasted into a path or a field name) is cut to
// its prefix: error bodies end up in logs.
const SECRET_RE = /\b(sk_(?:test|live)_|thm_|whs_|adm_)[A-Za-z0-9_]+/g;

/** Cuts secret-shaped substrings down to their prefix. */
export function redactSecrets(text: string): string {
  return text.replace(SECRET_RE, '$1…');
}

/** The spec's error body (2.9) for a status and code. Secret-shaped substrings of the message are redacted. */
export function errorResponse(
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return json(status, { error: { code, message: redactSecrets(message) } }, headers);
}

/** Maps a thrown value to an answer: a DomainError to its status and body, anything else to a 500 (a bug). */
export function toResponse(err: unknown, log?: (line: string) => void): Response {
  if (err instanceof DomainError) return errorResponse(err.status, err.code, err.message, err.headers);
  log?.(redactSecrets(`internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`));
  return errorResponse(500, 'internal_error', 'The reference failed to answer this request.');
}

/** Quotes a client-supplied value for an error message, bounded so a huge value is never echoed whole. */
export function quote(value: string, max = 64): string {
  const cut = value.length > max ? `${value.slice(0, max)}…` : value;
  return JSON.stringify(cut);
}
