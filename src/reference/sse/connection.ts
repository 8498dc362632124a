/** Limits of one client's buffer. */
export interface BufferLimits {
  /** Most messages waiting for a slow reader. */
  messages: number;
  /** Most bytes waiting for a slow reader. */
  bytes: number;
}

/**
 * One open stream. Bytes wait in a small queue of our own (the ReadableStream's queue stays empty: its high-water
 * mark is 0), so the limits are exact: when the reader lags and the queue is full, a message is dropped instead of
 * buffered. The chunks are shared with every other stream, so a full queue holds references, not copies.
 */
export class Connection {
  readonly stream: ReadableStream<Uint8Array>;
  readonly keyId: string;
  readonly merchantId: string;
  dropped = 0;
  /** Undoes what `open` hooked up for this stream (its abort listener); run when the stream goes. */
  detach: (() => void) | undefined;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #queue: Uint8Array[] = [];
  #head = 0;
  #bytes = 0;
  /** A read is waiting and nothing was queued: the next chunk goes straight to the reader. */
  #waiting = false;
  #closed = false;
  readonly #limits: BufferLimits;
  readonly #onGone: (c: Connection) => void;

  constructor(keyId: string, merchantId: string, limits: BufferLimits, onGone: (c: Connection) => void) {
    this.keyId = keyId;
    this.merchantId = merchantId;
    this.#limits = limits;
    this.#onGone = onGone;
    this.stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
        },
        pull: () => {
          if (this.#head < this.#queue.length) this.#controller.enqueue(this.#shift());
          else this.#waiting = true;
        },
        cancel: () => {
          this.#closed = true;
          this.#clear();
          this.#onGone(this);
        },
      },
      { highWaterMark: 0 },
    );
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Bytes waiting for the reader. */
  get bufferedBytes(): number {
    return this.#bytes;
  }

  /** Queues a chunk, or drops it when the buffer is full. Returns false when dropped. */
  push(chunk: Uint8Array, force = false): boolean {
    if (this.#closed) return false;
    if (this.#waiting) {
      this.#waiting = false;
      this.#controller.enqueue(chunk);
      return true;
    }
    const queued = this.#queue.length - this.#head;
    if (!force && (queued >= this.#limits.messages || this.#bytes + chunk.byteLength > this.#limits.bytes))
      return false;
    this.#queue.push(chunk);
    this.#bytes += chunk.byteLength;
    return true;
  }

  /** Hands what is queued (and `last`, if any) to the stream and closes it; the reader gets it all, then the end. */
  end(last?: Uint8Array): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      while (this.#head < this.#queue.length) this.#controller.enqueue(this.#shift());
      if (last) this.#controller.enqueue(last);
      this.#controller.close();
    } catch {
      // Already cancelled by the reader.
    }
    this.#clear();
    this.#onGone(this);
  }

  /** The client went away (its request was aborted): drop everything at once. */
  abort(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#clear();
    try {
      this.#controller.close();
    } catch {
      // Already closed or errored.
    }
    this.#onGone(this);
  }

  #shift(): Uint8Array {
    const chunk = this.#queue[this.#head]!;
    this.#queue[this.#head++] = undefined as unknown as Uint8Array;
    this.#bytes -= chunk.byteLength;
    if (this.#head === this.#queue.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (this.#head > 64 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    return chunk;
  }

  #clear(): void {
    this.#queue = [];
    this.#head = 0;
    this.#bytes = 0;
    this.#waiting = false;
  }
}
