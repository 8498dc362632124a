// A refused call leaves a tool as its code, status and message: what the agent needs to correct the call, never a
// stack (which names files and may quote input), and never a secret.
import { PspApiError } from '../client/api-errors.js';
import {
  PspAbortError,
  PspConnectionError,
  PspError,
  PspResponseError,
  PspTimeoutError,
  PspValidationError,
} from '../client/base-errors.js';
import { formsOnly, type Redactor } from '../internal/redact.js';
import { DomainError } from '../reference/domain/errors.js';
import { WebhookVerificationError } from '../webhooks/errors.js';
import { CODE } from '../schemas/errors.js';

/** A refusal of the server itself (bad arguments, an unknown token, a reference-only tool): thrown by a tool. */
export class ToolRefusal extends Error {
  override readonly name = 'ToolRefusal';
  constructor(
    readonly code: string,
    readonly status: number | null,
    message: string,
  ) {
    super(message);
  }
}

/** What a refused tool call reports. */
export interface ToolErrorInfo {
  code: string;
  status: number | null;
  message: string;
}

function classify(err: unknown): ToolErrorInfo {
  if (err instanceof ToolRefusal) return { code: err.code, status: err.status, message: err.message };
  if (err instanceof PspApiError) return { code: err.code, status: err.status, message: err.message };
  if (err instanceof DomainError) return { code: err.code, status: err.status, message: err.message };
  if (err instanceof PspValidationError) return { code: 'invalid_input', status: 400, message: err.message };
  if (err instanceof WebhookVerificationError)
    return { code: err.reason, status: null, message: err.message };
  if (err instanceof PspResponseError)
    return { code: 'invalid_response', status: err.status, message: err.message };
  if (err instanceof PspTimeoutError) return { code: 'timeout', status: null, message: err.message };
  if (err instanceof PspConnectionError)
    return { code: 'connection_error', status: null, message: err.message };
  if (err instanceof PspAbortError) return { code: 'aborted', status: null, message: err.message };
  if (err instanceof PspError) return { code: 'error', status: null, message: err.message };
  // A bug of this server: said as such, without the stack.
  const message = err instanceof Error ? err.message : String(err);
  return { code: CODE.internal_error, status: null, message: `psp-mcp failed: ${message}` };
}

/** The refusal of `err`, every field redacted by `redact` (the target's; the forms of secrets only before there is one). */
export function refusalOf(err: unknown, redact: Redactor = formsOnly): ToolErrorInfo {
  const r = classify(err);
  return { code: redact.text(r.code), status: r.status, message: redact.text(r.message) };
}
