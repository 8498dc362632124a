import { Fifo } from '../util/fifo.js';

/** Limits of one client's buffer. */
export interface BufferLimits {
  /** Most messages waiting for a slow reader. */
  messages: number;
  /** Most bytes waiting for a slow reader. */
  bytes: number;
}

/**
 * One open stream: its key, its group, and the `ReadableStream` its bytes go to. Chunks wait in a queue of our
 * own (the stream's queue stays empty: its high-water mark is 0), so the limits are exact: when the reader lags
 * and the queue holds as much as they allow, a message is dropped instead of queued. The chunks are shared with
 * every other stream of the group, so a full queue holds references, not copies. Aborting `signal` aborts the
 * stream.
 */
export class Connection {
  readonly keyId: string;
  readonly group: string;
  readonly stream: ReadableStream<Uint8Array>;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  readonly #queue = new Fifo<Uint8Array>();
  #bytes = 0;
  /** A read is waiting and nothing is queued: the next chunk goes straight to the reader. */
  #waiting = false;
  #closed = false;
  readonly #limits: BufferLimits;
  readonly #onGone: (c: Connection) => void;
  #detach: (() => void) | undefined;

  constructor(
    keyId: string,
    group: string,
    limits: BufferLimits,
    onGone: (c: Connection) => void,
    signal: AbortSignal | undefined,
  ) {
    this.keyId = keyId;
    this.group = group;
    this.#limits = limits;
    this.#onGone = onGone;
    this.stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
        },
        pull: () => {
          const chunk = this.#queue.shift();
          if (chunk === undefined) this.#waiting = true;
          else {
            this.#bytes -= chunk.byteLength;
            this.#controller.enqueue(chunk);
          }
        },
        // The reader went away (the node adapter cancels the body when the socket closes).
        cancel: () => this.abort(),
      },
      { highWaterMark: 0 },
    );
    if (signal) {
      // Removed when the stream goes another way, so a long-lived signal does not keep dead streams alive.
      const onAbort = () => this.abort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.#detach = () => signal.removeEventListener('abort', onAbort);
    }
  }

  /** Bytes waiting for the reader. */
  get bufferedBytes(): number {
    return this.#bytes;
  }

  /** Hands a chunk to the reader, or queues it; drops it when the queue is full (unless `force`). False when dropped. */
  push(chunk: Uint8Array, force = false): boolean {
    if (this.#closed) return false;
    if (this.#waiting) {
      this.#waiting = false;
      this.#controller.enqueue(chunk);
      return true;
    }
    if (
      !force &&
      (this.#queue.size >= this.#limits.messages || this.#bytes + chunk.byteLength > this.#limits.bytes)
    )
      return false;
    this.#queue.push(chunk);
    this.#bytes += chunk.byteLength;
    return true;
  }

  /** Ends the stream after what is queued (and `last`, if any) reaches the reader. */
  end(last?: Uint8Array): void {
    if (this.#closed) return;
    this.#closed = true;
    // The stream's own queue takes the rest: the reader gets it, then the end.
    this.#queue.drain((chunk) => this.#controller.enqueue(chunk));
    if (last) this.#controller.enqueue(last);
    this.#controller.close();
    this.#forget();
  }

  /** The client went away (its request was aborted, it cancelled the body): drop everything at once. */
  abort(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#queue.clear();
    try {
      this.#controller.close();
    } catch {
      // Cancelled by the reader: nothing left to close.
    }
    this.#forget();
  }

  #forget(): void {
    this.#bytes = 0;
    this.#waiting = false;
    this.#detach?.();
    this.#onGone(this);
  }
}
