import { CODE } from '../../schemas/errors.js';
import type * as z from 'zod/mini';
import { formatFieldIssues, parseOwn, toFieldIssues } from '../../schemas/issues.js';
import type { ApiKeyRecord, MerchantRecord, TerminalRecord } from './accounts.js';
import { refuse } from './errors.js';

/** Who is calling the public API: the key, and the terminal and merchant it belongs to. */
export interface Caller {
  key: ApiKeyRecord;
  merchant: MerchantRecord;
  terminal: TerminalRecord;
}

const MAX_MESSAGE = 1000;

/** Validates a public-API body against a spec schema; a 400 `bad_request` naming each bad field otherwise. */
export function parseBody<S extends z.ZodMiniType>(schema: S, raw: unknown): z.output<S> {
  const r = parseOwn(schema, raw);
  if (!r.success) {
    const text = formatFieldIssues(toFieldIssues(r.error.issues));
    throw refuse(CODE.bad_request, text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text);
  }
  // A metadata key named "__proto__" is kept (the spec allows any key): JSON.parse makes it an own property, the
  // schemas check the object as given, and the payment copies it with a spread, which defines rather than sets.
  return r.data;
}
