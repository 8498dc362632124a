import type { ServerResponse } from 'node:http';
import type { EventSink } from './connection.js';

/** The last chunk framed, and its framing: the hub writes one event's bytes to every stream in a row. */
let lastChunk: Uint8Array | undefined;
let lastFramed: Uint8Array | undefined;

/** `chunk` as one HTTP/1.1 chunk (`<size hex>\r\n<bytes>\r\n`), made once per event, not once per stream. */
function chunked(chunk: Uint8Array): Uint8Array {
  if (chunk === lastChunk) return lastFramed!;
  const size = `${chunk.byteLength.toString(16)}\r\n`;
  const framed = new Uint8Array(size.length + chunk.byteLength + 2);
  for (let i = 0; i < size.length; i++) framed[i] = size.charCodeAt(i);
  framed.set(chunk, size.length);
  framed[framed.length - 2] = 13; // \r
  framed[framed.length - 1] = 10; // \n
  lastChunk = chunk;
  lastFramed = framed;
  return framed;
}

/** Node itself: Deno's and Bun's `node:http` emulate the socket, so they keep to `res.write`. */
const realNode =
  typeof process !== 'undefined' &&
  !('Deno' in globalThis) &&
  !('Bun' in globalThis) &&
  typeof process.versions?.node === 'string';

/**
 * A stream written straight to a node `ServerResponse` whose head is already set (`writeHead`): each frame is one
 * write, no web stream or reader promise in between. Once node has sent the head with the first frame, a chunked
 * response gets each later frame as one pre-framed `socket.write` (the bytes `res.write` would send, without its
 * separate size, body and CRLF writes, the cork and the tick to uncork), the framing made once per event for all
 * streams. The socket's own buffer is
 * the client's buffer: `writableLength` is what it has not taken yet, so a client that does not read makes the hub
 * drop (and count) messages instead of growing memory.
 *
 * @example
 * ```ts
 * res.writeHead(200, { 'content-type': 'text/event-stream' });
 * const handle = hub.attach({ keyId, merchantId, sink: new NodeResponseSink(res) });
 * res.once('close', () => handle.abort());
 * ```
 */
export class NodeResponseSink implements EventSink {
  readonly #res: ServerResponse;
  /** Frames written since the socket last had nothing pending: an upper bound of the messages it holds. */
  #pending = 0;
  #direct = false;
  #ended = false;

  constructor(res: ServerResponse) {
    this.#res = res;
  }

  get idle(): boolean {
    return this.#res.writableLength === 0;
  }

  get bufferedBytes(): number {
    return this.#res.writableLength;
  }

  get bufferedMessages(): number {
    if (this.#res.writableLength === 0) this.#pending = 0;
    return this.#pending;
  }

  write(chunk: Uint8Array): void {
    const res = this.#res;
    if (this.#ended || res.destroyed || res.writableEnded) return;
    if (res.writableLength === 0) this.#pending = 0;
    const socket = res.socket;
    if (this.#direct && socket?.writable) socket.write(chunked(chunk));
    else {
      res.write(chunk);
      // The head went out with this write (the response owns the socket and held nothing back): later frames
      // can go to the socket themselves, in order after it.
      this.#direct =
        realNode &&
        res.chunkedEncoding === true &&
        socket !== null &&
        res.writableLength === socket.writableLength;
    }
    this.#pending++;
  }

  end(last?: Uint8Array): void {
    if (this.#ended) return;
    if (last) this.write(last);
    this.#ended = true;
    if (!this.#res.destroyed && !this.#res.writableEnded) this.#res.end();
  }

  abort(): void {
    this.#ended = true;
    if (!this.#res.destroyed) this.#res.destroy();
  }
}
