import type * as z from 'zod/mini';
import { formatFieldIssues, toFieldIssues } from '../../schemas/issues.js';
import type { ApiKeyRecord, MerchantRecord, TerminalRecord } from './accounts.js';
import { DomainError } from './errors.js';

/** Who is calling the public API: the key, and the terminal and merchant it belongs to. */
export interface Caller {
  key: ApiKeyRecord;
  merchant: MerchantRecord;
  terminal: TerminalRecord;
}

const MAX_MESSAGE = 1000;

/** Validates a public-API body against a spec schema; a 400 `bad_request` naming each bad field otherwise. */
export function parseBody<S extends z.ZodMiniType>(schema: S, raw: unknown): z.output<S> {
  const r = schema.safeParse(raw);
  if (!r.success) {
    const text = formatFieldIssues(toFieldIssues(r.error.issues));
    throw new DomainError(
      400,
      'bad_request',
      text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text,
    );
  }
  // zod's record drops a "__proto__" key silently; refuse it instead of storing something else than was sent.
  const meta = (raw as { metadata?: unknown } | null)?.metadata;
  if (meta && typeof meta === 'object' && Object.hasOwn(meta, '__proto__')) {
    throw new DomainError(400, 'bad_request', 'metadata: the key "__proto__" is not allowed');
  }
  return r.data;
}
