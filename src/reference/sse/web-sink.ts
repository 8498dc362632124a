import type { EventSink } from './connection.js';

/**
 * A stream's bytes as a `ReadableStream`, the body `Reference.fetch` answers with. Bytes wait in a small queue of
 * our own (the ReadableStream's queue stays empty: its high-water mark is 0), so the hub's limits are exact.
 *
 * @example
 * ```ts
 * const sink = new WebStreamSink(() => connection.abort());
 * new Response(sink.stream, { headers: { 'content-type': 'text/event-stream' } });
 * ```
 */
export class WebStreamSink implements EventSink {
  readonly stream: ReadableStream<Uint8Array>;
  /** Run when the reader cancels the stream; set by whoever owns the connection. */
  onCancel: (() => void) | undefined;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #queue: Uint8Array[] = [];
  #head = 0;
  #bytes = 0;
  /** A read is waiting and nothing was queued: the next chunk goes straight to the reader. */
  #waiting = false;

  constructor() {
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
          this.#clear();
          this.onCancel?.();
        },
      },
      { highWaterMark: 0 },
    );
  }

  get idle(): boolean {
    return this.#waiting;
  }

  get bufferedBytes(): number {
    return this.#bytes;
  }

  get bufferedMessages(): number {
    return this.#queue.length - this.#head;
  }

  write(chunk: Uint8Array): void {
    if (this.#waiting) {
      this.#waiting = false;
      this.#controller.enqueue(chunk);
      return;
    }
    this.#queue.push(chunk);
    this.#bytes += chunk.byteLength;
  }

  end(last?: Uint8Array): void {
    try {
      while (this.#head < this.#queue.length) this.#controller.enqueue(this.#shift());
      if (last) this.#controller.enqueue(last);
      this.#controller.close();
    } catch {
      // Already cancelled by the reader.
    }
    this.#clear();
  }

  abort(): void {
    this.#clear();
    try {
      this.#controller.close();
    } catch {
      // Already closed or errored.
    }
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
