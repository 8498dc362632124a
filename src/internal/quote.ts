import { redactSecrets } from './redact.js';

/**
 * Quotes a client-supplied value for an error message, bounded so a huge value is never echoed whole. Redacted as
 * the client wrote it, before `JSON.stringify` doubles its backslashes: a secret sent JSON-escaped (`\u005f`)
 * would otherwise reach the message as `\\u005f`, which no decoding of the message reads back as the secret.
 *
 * @example
 * quote('cur_x'); // '"cur_x"'
 */
export function quote(value: string, max = 64): string {
  const safe = redactSecrets(value);
  return JSON.stringify(safe.length > max ? `${safe.slice(0, max)}…` : safe);
}
