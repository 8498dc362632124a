import { DEFAULTS } from '../domain/defaults.js';
import { DomainError } from '../domain/errors.js';
import { header } from './headers.js';

const EMPTY = new Uint8Array(0);

/**
 * Where an adapter may attach a {@link BodyReader} to the `Request` it builds: the node adapter reads the
 * IncomingMessage directly instead of through two layers of web streams and a full undici `Request` (most of a
 * POST's cost). Without one, the body is read from `request.body`.
 */
export const READ_BODY: unique symbol = Symbol('psp-sdk.reference.readBody');

/**
 * Reads the whole body: resolves to its bytes, or to `undefined` as soon as more than `maxBytes` arrived (reading
 * stops there and the rest is left to the adapter); rejects when the body cannot be read (the client went away).
 */
export type BodyReader = (maxBytes: number) => Promise<Uint8Array | undefined>;

/**
 * The raw body bytes, exactly as sent (signatures cover them), read with a hard cap: a `Content-Length` over the
 * cap is refused before reading, and a chunked body is cut off as soon as it passes the cap.
 */
export async function readRawBody(
  request: Request,
  maxBytes: number = DEFAULTS.maxBodyBytes,
): Promise<Uint8Array> {
  // 400, not 413: spec section 4 lists 400 for an invalid request and no 413 (docs/spec-decisions.md).
  const tooLarge = () =>
    new DomainError(400, 'payload_too_large', `The request body is larger than ${maxBytes} bytes.`);
  const declared = header(request, 'content-length');
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > maxBytes) throw tooLarge();
  const direct = (request as Request & { [READ_BODY]?: BodyReader })[READ_BODY];
  if (direct) {
    let bytes: Uint8Array | undefined;
    try {
      bytes = await direct(maxBytes);
    } catch {
      throw new DomainError(400, 'bad_request', 'The request body could not be read.');
    }
    if (bytes === undefined) throw tooLarge();
    return bytes;
  }
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
    throw new DomainError(400, 'bad_request', 'The request body could not be read.');
  }
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

// What clients send nearly always; both pass the full check below, which splits and lower-cases every time.
const PLAIN_JSON = new Set(['application/json', 'application/json; charset=utf-8']);

function checkContentType(header: string | null): void {
  if (header === null) return; // A JSON body without Content-Type is read as JSON, as the spec's wire is JSON only.
  if (PLAIN_JSON.has(header)) return;
  const [type = '', ...params] = header.split(';').map((s) => s.trim().toLowerCase());
  if (type !== 'application/json' && !/^application\/[a-z0-9.+-]+\+json$/.test(type)) {
    // 400 with the specific code: spec section 4 lists no 415 (docs/spec-decisions.md).
    throw new DomainError(
      400,
      'unsupported_media_type',
      'The request body must be JSON (Content-Type: application/json).',
    );
  }
  const charset = params
    .find((p) => p.startsWith('charset='))
    ?.slice(8)
    .replace(/"/g, '');
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new DomainError(400, 'unsupported_media_type', 'The request body must be UTF-8 encoded JSON.');
  }
}

/**
 * Parses a JSON body. Empty bodies give `undefined` (the route decides whether that is allowed). Malformed JSON,
 * bad UTF-8 or a non-JSON Content-Type are 400s; the parser's own message is not echoed, as it quotes the input.
 */
export function parseJson(bytes: Uint8Array, contentType: string | null): unknown {
  if (bytes.byteLength === 0) return undefined;
  checkContentType(contentType);
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw new DomainError(400, 'bad_request', 'The request body is not valid UTF-8.');
  }
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (err) {
    const at = /position (\d+)/.exec(err instanceof Error ? err.message : '')?.[1];
    const where = at ? ` (near byte ${at})` : '';
    if (err instanceof RangeError)
      throw new DomainError(400, 'bad_request', 'The JSON body is nested too deeply.');
    throw new DomainError(400, 'bad_request', `The request body is not valid JSON${where}.`);
  }
}

/** A body the route requires: 400 when it is missing. */
export function requireJson(bytes: Uint8Array, contentType: string | null): unknown {
  const value = parseJson(bytes, contentType);
  if (value === undefined) throw new DomainError(400, 'bad_request', 'A JSON request body is required.');
  return value;
}

/** A route that takes no body: empty, or an empty JSON object, is accepted; anything else is a 400. */
export function requireNoBody(bytes: Uint8Array, contentType: string | null): void {
  const value = parseJson(bytes, contentType);
  if (value === undefined) return;
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0)
    return;
  throw new DomainError(400, 'bad_request', 'This endpoint takes no request body.');
}
