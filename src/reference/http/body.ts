import { CODE } from '../../schemas/errors.js';
import type { Context } from 'hono';
import { DEFAULTS } from '../domain/defaults.js';
import { DomainError, refuse } from '../domain/errors.js';
import type { AppEnv } from './context.js';

const EMPTY = new Uint8Array(0);

/**
 * Refuses an `Expect` expectation other than `100-continue` (which node's server answers itself) with a 400
 * `bad_request` and the spec's error body. RFC 9110 lets a server refuse it with 417, a status the spec lists for no
 * operation; so the refusal comes in the spec's terms, after authentication like any other request error.
 */
export function checkExpect(request: Request): void {
  const expect = request.headers.get('expect');
  if (expect === null || expect.trim().toLowerCase() === '100-continue') return;
  throw refuse(CODE.bad_request, 'Expect: only "100-continue" is supported.');
}

/**
 * A body over a route's cap: 400 `bad_request` (spec section 7's code for an invalid request; section 4 lists no 413),
 * the reason in the message.
 */
export function payloadTooLarge(maxBytes: number): DomainError {
  return refuse(CODE.bad_request, `Payload too large: the request body is larger than ${maxBytes} bytes.`);
}

/**
 * The most bytes a body of a route that takes none may have: an empty body or `{}` is accepted (some HTTP clients
 * always send one, maybe pretty-printed), so a larger one is refused by its `Content-Length` before it is read.
 */
export const NO_BODY_MAX_BYTES = 1024;

/**
 * The raw body of a request, at most `maxBytes` (the route's cap; default the API's 1 MiB): read by the adapter's
 * `readBody` when it has one (the node adapter reads only now, after section 5, counting it against `owner`'s
 * share: the merchant of the key, none for the admin), else the bytes it already read, else `request.body`. A GET
 * or HEAD has none: one that declares a body (RFC 9112: a `Transfer-Encoding`, or a `Content-Length` other than 0)
 * is refused with 400 `bad_request`, unread, rather than checked against the empty body's signature while other
 * bytes were sent (asking its `body` would make @hono/node-server build a whole second Request, and the Fetch
 * standard gives a GET none).
 */
export function bodyOf(
  c: Context<AppEnv>,
  maxBytes: number = DEFAULTS.maxBodyBytes,
  owner?: string,
): Uint8Array | Promise<Uint8Array> {
  const request = c.req.raw;
  if (request.method === 'GET' || request.method === 'HEAD') {
    if (declaresBody(request.headers))
      throw refuse(CODE.bad_request, `A ${request.method} request takes no body; send none.`);
    return EMPTY;
  }
  const info = c.env;
  if (info?.readBody) return info.readBody(maxBytes, owner);
  if (info?.body) {
    if (info.body.byteLength > maxBytes) throw payloadTooLarge(maxBytes);
    return info.body;
  }
  return readRawBody(request, maxBytes);
}

function declaresBody(headers: Headers): boolean {
  const length = headers.get('content-length');
  return headers.has('transfer-encoding') || (length !== null && length.trim() !== '0');
}

/**
 * The raw body bytes, exactly as sent (signatures cover them), read with a hard cap: a `Content-Length` over the
 * cap is refused before reading, and a chunked body is cut off as soon as it passes the cap.
 */
export async function readRawBody(
  request: Request,
  maxBytes: number = DEFAULTS.maxBodyBytes,
): Promise<Uint8Array> {
  const tooLarge = () => payloadTooLarge(maxBytes);
  const declared = request.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > maxBytes) throw tooLarge();
  if (!request.body) return EMPTY;
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => {});
        throw tooLarge();
      }
      chunks.push(value);
    }
  } catch (err) {
    if (err instanceof DomainError) throw err;
    throw refuse(CODE.bad_request, 'The request body could not be read.');
  }
  return new Uint8Array(await new Blob(chunks).arrayBuffer());
}

const decoder = new TextDecoder('utf-8', { fatal: true });

function checkContentType(header: string | undefined): void {
  if (header === undefined) return; // A JSON body without Content-Type is read as JSON: the spec's wire is JSON only.
  const [type = '', ...params] = header.split(';').map((s) => s.trim().toLowerCase());
  if (type !== 'application/json' && !/^application\/[a-z0-9.+-]+\+json$/.test(type)) {
    // 400 `bad_request`, the reason in the message: spec section 4 lists no 415 (docs/spec-decisions.md).
    throw refuse(
      CODE.bad_request,
      'Unsupported media type: the request body must be JSON (Content-Type: application/json).',
    );
  }
  const charset = params
    .find((p) => p.startsWith('charset='))
    ?.slice(8)
    .replace(/"/g, '');
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw refuse(CODE.bad_request, 'Unsupported media type: the request body must be UTF-8 encoded JSON.');
  }
}

/**
 * Parses the JSON body the guard read (`c.get('raw')`). Empty bodies give `undefined` (the route decides whether
 * that is allowed); a whitespace-only body is a body and not JSON, so it is a 400 (for a refund, "empty" means
 * "refund the whole balance"). Malformed JSON, bad UTF-8 or a non-JSON Content-Type are 400s; the parser's own message is not
 * echoed, as it quotes the input.
 */
export function parseJson(c: Context<AppEnv>): unknown {
  const bytes = c.get('raw');
  if (bytes.byteLength === 0) return undefined;
  checkContentType(c.req.header('content-type'));
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw refuse(CODE.bad_request, 'The request body is not valid UTF-8.');
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    const at = /position (\d+)/.exec(err instanceof Error ? err.message : '')?.[1];
    const where = at ? ` (near byte ${at})` : '';
    if (err instanceof RangeError) throw refuse(CODE.bad_request, 'The JSON body is nested too deeply.');
    throw refuse(CODE.bad_request, `The request body is not valid JSON${where}.`);
  }
}

/** A body the route requires: 400 when it is missing. */
export function requireJson(c: Context<AppEnv>): unknown {
  const value = parseJson(c);
  if (value === undefined) throw refuse(CODE.bad_request, 'A JSON request body is required.');
  return value;
}

/** A route that takes no body: empty, or an empty JSON object, is accepted; anything else is a 400. */
export function requireNoBody(c: Context<AppEnv>): void {
  const value = parseJson(c);
  if (value === undefined) return;
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0)
    return;
  throw refuse(CODE.bad_request, 'This endpoint takes no request body.');
}
