/** Limits of one client's buffer. */
export interface BufferLimits {
  /** Most messages waiting for a slow reader. */
  messages: number;
  /** Most bytes waiting for a slow reader. */
  bytes: number;
}

/**
 * Where one stream's bytes go: a `ReadableStream` for `Reference.fetch` callers ({@link WebStreamSink}), or, in the
 * node adapter, the HTTP response itself. The hub decides what to drop from `idle` and the two counters; a sink
 * only writes, ends and forgets.
 *
 * @example
 * ```ts
 * const sink: EventSink = new WebStreamSink();
 * hub.attach({ keyId, merchantId, sink });
 * ```
 */
export interface EventSink {
  /** The client takes the next chunk at once (a read is waiting, or the socket has nothing pending). */
  readonly idle: boolean;
  /** Bytes written but not yet taken by the client. */
  readonly bufferedBytes: number;
  /** Messages written but not yet taken by the client (an upper bound where the transport counts only bytes). */
  readonly bufferedMessages: number;
  /** Takes one chunk; the bytes are shared with every other stream, so it must not change them. */
  write(chunk: Uint8Array): void;
  /** Delivers what is waiting, then `last` (if any), then ends the stream. */
  end(last?: Uint8Array): void;
  /** The client went away: drops what is waiting and lets go of the stream. */
  abort(): void;
}

/**
 * One open stream as the hub sees it: its key, its group, and the sink its bytes go to. When the reader lags and
 * the sink holds as much as the limits allow, a message is dropped instead of buffered; the chunks are shared with
 * every other stream, so a full buffer holds references, not copies.
 */
export class Connection {
  readonly keyId: string;
  readonly merchantId: string;
  dropped = 0;
  /** Undoes what `open` hooked up for this stream (its abort listener); run when the stream goes. */
  detach: (() => void) | undefined;
  readonly #sink: EventSink;
  #closed = false;
  readonly #limits: BufferLimits;
  readonly #onGone: (c: Connection) => void;

  constructor(
    keyId: string,
    merchantId: string,
    sink: EventSink,
    limits: BufferLimits,
    onGone: (c: Connection) => void,
  ) {
    this.keyId = keyId;
    this.merchantId = merchantId;
    this.#sink = sink;
    this.#limits = limits;
    this.#onGone = onGone;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Bytes waiting for the reader. */
  get bufferedBytes(): number {
    return this.#closed ? 0 : this.#sink.bufferedBytes;
  }

  /** Hands a chunk to the sink, or drops it when the client's buffer is full. Returns false when dropped. */
  push(chunk: Uint8Array, force = false): boolean {
    if (this.#closed) return false;
    const sink = this.#sink;
    if (
      !force &&
      !sink.idle &&
      (sink.bufferedMessages >= this.#limits.messages ||
        sink.bufferedBytes + chunk.byteLength > this.#limits.bytes)
    )
      return false;
    sink.write(chunk);
    return true;
  }

  /** Ends the stream after what is buffered (and `last`, if any) reaches the reader. */
  end(last?: Uint8Array): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#sink.end(last);
    this.#onGone(this);
  }

  /** The client went away (its request was aborted, its socket closed): drop everything at once. */
  abort(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#sink.abort();
    this.#onGone(this);
  }
}
