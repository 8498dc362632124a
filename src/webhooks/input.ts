import { fail } from './errors.js';

/** The request body exactly as received: a string, or the bytes (Uint8Array, Buffer, ArrayBuffer, any view). */
export type RawWebhookBody = string | Uint8Array | ArrayBuffer | ArrayBufferView;

/**
 * Request headers in any common shape: a fetch `Headers`, Node's `IncomingHttpHeaders` (lowercase keys, array
 * values) or a plain record with any key case.
 */
export type WebhookHeaders =
  | Headers
  | { get(name: string): string | null | undefined }
  | Readonly<Record<string, string | readonly string[] | number | undefined | null>>;

/**
 * The body as a string or a byte view, without copying; anything else is `body_not_raw`.
 *
 * @example
 * rawBody(Buffer.from('{}')); // the same bytes, as a Uint8Array
 */
export function rawBody(body: unknown): string | Uint8Array {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return body;
  // isView also accepts views made in another realm (vm, iframes, test runners).
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  return notRaw(body == null ? String(body) : `a parsed ${typeof body}`);
}

function notRaw(what: string): never {
  return fail(
    'body_not_raw',
    `Pass the raw body (string, Buffer, Uint8Array, ArrayBuffer) as received, not ${what}: the signature covers the exact bytes; re-serialised JSON differs. ` +
      'Read it before any JSON parser, e.g. express.raw() or request.text().',
  );
}

/**
 * One header's value; repeated values are joined with a comma as fetch does.
 *
 * @example
 * header(req.headers, 'x-psp-signature');
 */
export function header(headers: WebhookHeaders | null | undefined, lowerName: string): string | undefined {
  if (headers == null || typeof headers !== 'object') return undefined;
  if (typeof headers.get === 'function') return (headers as Headers).get(lowerName) ?? undefined;
  const rec = headers as Record<string, unknown>;
  let v = rec[lowerName];
  if (v === undefined) {
    for (const k in rec) {
      if (k.toLowerCase() === lowerName) {
        v = rec[k];
        break;
      }
    }
  }
  if (Array.isArray(v)) return v.join(',');
  return v == null ? undefined : String(v);
}

/**
 * The body of `request`, read up to `maxBytes`: the bytes, or `undefined` once the body is (or says it is)
 * larger, in which case the stream is cancelled rather than drained, so a huge or endless upload costs at most
 * `maxBytes` of memory.
 *
 * @example
 * const body = await readBounded(request, 1 << 20);
 * if (!body) return new Response(null, { status: 413 });
 */
export async function readBounded(request: Request, maxBytes: number): Promise<Uint8Array | undefined> {
  const stream = request.body;
  if (!stream) return new Uint8Array(0);
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await stream.cancel().catch(() => {});
    return undefined;
  }
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
