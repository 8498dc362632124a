import type { MiddlewareHandler } from 'hono';
import { sha256Hex } from '../../internal/hmac.js';
import { OPERATIONS, type OperationName, PUBLIC_PREFIX } from '../../schemas/operations.js';
import { ConnectionReset } from '../faults/index.js';
import type { Caller } from '../domain/validate.js';
import type { Domain } from '../domain/core.js';
import { keyMerchant } from './auth.js';
import type { AppEnv } from './context.js';
import { errorCodeOf } from './errors.js';
import { MAX_JOURNAL_BODY, type RequestJournal } from '../journal/index.js';

// Read from the table of operations: a path is written there only.
const ROWS = Object.entries(OPERATIONS).map(([name, row]) => ({
  name: name as OperationName,
  method: row.method as string,
  re: new RegExp(`^${PUBLIC_PREFIX}${row.path.replace('{id}', '[^/]+')}$`),
}));

/**
 * The operation a public request names, by its method and path (HEAD as the GET it mirrors), or null.
 *
 * @example operationOf('POST', '/api/v1/public/payments'); // 'payments.create'
 */
export function operationOf(method: string, path: string): OperationName | null {
  const m = method === 'HEAD' ? 'GET' : method;
  return ROWS.find((row) => row.method === m && row.re.test(path))?.name ?? null;
}

const isPublic = (path: string) => path === PUBLIC_PREFIX || path.startsWith(`${PUBLIC_PREFIX}/`);
const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

/**
 * The `code` of an error answer: as the reference's own error bodies were made (no copy), else read from a copy of
 * the body (an app middleware's own answer), so the answer still leaves whole. A success has none, and costs no
 * await.
 */
function errorCode(res: Response): string | null | Promise<string | null> {
  if (res.status < 400) return null;
  const own = errorCodeOf(res);
  if (own !== null || !res.headers.get('content-type')?.includes('json')) return own;
  return foreignCode(res);
}

async function foreignCode(res: Response): Promise<string | null> {
  try {
    const body = (await res.clone().json()) as { error?: { code?: unknown } | undefined } | null;
    const code = body?.error?.code;
    return typeof code === 'string' ? cut(code, 64) : null;
  } catch {
    return null;
  }
}

// A UTF-8 character is at most 4 bytes: this many bytes hold every character the journal keeps.
const bodyText = (raw: Uint8Array) => new TextDecoder().decode(raw.subarray(0, MAX_JOURNAL_BODY * 8));

/** An answer's `Retry-After` in seconds (the reference sends whole seconds), or null. */
function retryAfterOf(res: Response | undefined): number | null {
  const value = res?.headers.get('retry-after');
  return value && /^\d{1,9}$/.test(value) ? Number(value) : null;
}

/**
 * Records every public request in `journal` once its answer is known: mounted first in `createApp`, so it sees
 * what leaves, a section 5 refusal, a 404 and a fault rule's answer or reset included. It reads only what the
 * request already carried through the app (the body's bytes if section 5 read them, the caller it found), so it
 * reads no byte more and changes nothing. What the client sent is recorded as sent: the journal redacts it when read.
 *
 * @example app.use(journalMiddleware(journal, domain));
 */
export function journalMiddleware(journal: RequestJournal, domain: Domain): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const path = c.req.path;
    if (!isPublic(path)) return next();
    const time = journal.now();
    const request = c.req.raw;
    const record = (res: Response | undefined, errorCode: string | null) => {
      const raw = c.get('raw') as Uint8Array | undefined;
      const key = request.headers.get('idempotency-key');
      journal.record({
        time,
        operation: operationOf(request.method, path),
        method: request.method,
        path,
        status: res?.status ?? null,
        error_code: errorCode,
        retry_after: retryAfterOf(res),
        idempotency_key: key,
        request_id: res ? (c.env?.requestId ?? null) : null,
        // A request section 5 did not see (a fault answered it first, no route had its path) is still its key's
        // merchant's: a merchant admin token's journal shows it.
        merchant_id:
          (c.get('caller') as Caller | undefined)?.merchant.id ?? keyMerchant(domain, request) ?? null,
        body_bytes: raw ? raw.byteLength : null,
        body_sha256: raw ? sha256Hex(raw) : null,
        ...(journal.bodies ? { body: raw ? bodyText(raw) : null } : {}),
      });
    };
    try {
      await next();
    } catch (error) {
      // A fault's reset: no answer left, but the request was received.
      if (error instanceof ConnectionReset) record(undefined, null);
      throw error;
    }
    const code = errorCode(c.res);
    record(c.res, code instanceof Promise ? await code : code);
  };
}
