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
 * The body of `request`, read up to `maxBytes` within `timeoutMs`: the bytes, `'too_large'` once the body is (or
 * says it is) larger, or `'timeout'` when it stops arriving. In both refusals the stream is cancelled rather than
 * drained, so a huge, endless or stalled upload costs at most `maxBytes` of memory for at most `timeoutMs`.
 *
 * @example
 * const body = await readBounded(request, 1 << 20, 10_000);
 * if (typeof body === 'string') return new Response(null, { status: body === 'timeout' ? 408 : 413 });
 */
export async function readBounded(
  request: Request,
  maxBytes: number,
  timeoutMs: number,
): Promise<Uint8Array | 'too_large' | 'timeout'> {
  const stream = request.body;
  if (!stream) return new Uint8Array(0);
  const reader = stream.getReader();
  let refusal: 'too_large' | 'timeout' | undefined;
  // Cancelling ends a pending read (done), so the loop below stops at once, a stalled read included.
  const stop = (why: 'too_large' | 'timeout') => {
    refusal ??= why;
    return reader.cancel().catch(() => {});
  };
  const timer = setTimeout(() => stop('timeout'), Math.min(timeoutMs, 2 ** 31 - 1)); // past it, node fires at once
  if (Number(request.headers.get('content-length') ?? Number.NaN) > maxBytes) await stop('too_large');
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (!refusal) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) await stop('too_large');
    else chunks.push(value);
  }
  clearTimeout(timer);
  if (refusal) return refusal;
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
