import { Buffer } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import type { DirectRoutes } from '../http/fast-path.js';
import { RAW_HEADERS } from '../http/headers.js';

const NO_BODY = new Uint8Array(0);

/**
 * The direct answer to a request the reference's {@link DirectRoutes} take, or `undefined` when it must go
 * through @hono/node-server and the full app. Only requests both paths would read alike are taken: a relative
 * target the routes take, a Host header @hono/node-server accepts as it is, and for a POST one `Content-Length`
 * within the body limit and no `Transfer-Encoding`. A GET is answered in this call; a POST once its body is in.
 */
export function answerDirect(
  direct: DirectRoutes,
  incoming: IncomingMessage,
  remoteAddress: string | undefined,
  defaultHost: string,
  hosts: HostCheck,
): Response | Promise<Response> | undefined {
  const { method, url: target } = incoming;
  if (method === undefined || target === undefined || !direct.takes(method, target)) return undefined;
  const raw = incoming.rawHeaders;
  let host: string | undefined;
  let length: string | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    // Only the names that matter are lower-cased: host (4), content-length (14), transfer-encoding (17).
    if (name.length === 4) {
      if (host === undefined && name.toLowerCase() === 'host') host = raw[i + 1]!;
    } else if (name.length === 14) {
      if (name.toLowerCase() === 'content-length') {
        if (length !== undefined) return undefined;
        length = raw[i + 1]!;
      }
    } else if (name.length === 17 && name.toLowerCase() === 'transfer-encoding') return undefined;
  }
  const authority = host || defaultHost;
  if (!hosts.plain(authority)) return undefined;
  const url = `${(incoming.socket as { encrypted?: boolean } | null)?.encrypted ? 'https' : 'http'}://${authority}${target}`;
  if (method === 'GET') {
    return direct.answer({ method, url, [RAW_HEADERS]: raw, bytes: NO_BODY }, remoteAddress);
  }
  if (length === undefined || !/^\d{1,9}$/.test(length) || Number(length) > direct.maxBodyBytes)
    return undefined;
  return readIncoming(incoming, direct.maxBodyBytes).then(
    (bytes) => direct.answer({ method, url, [RAW_HEADERS]: raw, bytes }, remoteAddress),
    () => direct.answer({ method, url, [RAW_HEADERS]: raw, bytes: undefined }, remoteAddress),
  );
}

/**
 * Whether @hono/node-server would take a Host header as it is: it builds the request URL from it and refuses one
 * whose host the URL parser rewrites (`0x7f.1`, an unbalanced bracket). The verdict of each value is kept, as a
 * server sees few, up to a bound; past it, values are judged afresh each time.
 */
export class HostCheck {
  readonly #known = new Map<string, boolean>();

  plain(host: string): boolean {
    const known = this.#known.get(host);
    if (known !== undefined) return known;
    let ok: boolean;
    try {
      const { hostname } = new URL(`http://${host}/`);
      ok = hostname.length === host.length || hostname === host.replace(/:\d+$/, '');
    } catch {
      ok = false;
    }
    if (this.#known.size < 64) this.#known.set(host, ok);
    return ok;
  }
}

/**
 * Reads a request body from the IncomingMessage: its bytes, or `undefined` once more than `maxBytes` arrived. Then
 * it stops listening and pauses the message; @hono/node-server drains (or drops) the rest after the answer, as it
 * does for a body nobody read. Rejects when the client goes away before the body ends.
 */
export function readIncoming(incoming: IncomingMessage, maxBytes: number): Promise<Uint8Array | undefined> {
  return new Promise((resolve, reject) => {
    // Already read, or the client already went away: no event will come, so answer now instead of waiting.
    if (incoming.readableEnded || incoming.destroyed) {
      reject(new Error('The request body cannot be read.'));
      return;
    }
    const chunks: Uint8Array[] = [];
    let total = 0;
    const stop = () => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onFail);
      incoming.off('close', onFail);
    };
    const onData = (chunk: Uint8Array) => {
      total += chunk.byteLength;
      if (total > maxBytes) {
        stop();
        incoming.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      if (chunks.length === 0) return resolve(NO_BODY);
      const whole = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
      // A plain Uint8Array view, as a web stream would give (a Buffer's toString and slice differ).
      resolve(new Uint8Array(whole.buffer, whole.byteOffset, whole.byteLength));
    };
    const onFail = () => {
      stop();
      reject(new Error('The request body could not be read.'));
    };
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onFail);
    incoming.on('close', onFail);
  });
}
