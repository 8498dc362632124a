import { Fifo } from '../util/fifo.js';
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
  readonly #queue = new Fifo<Uint8Array>();
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
          if (this.#queue.size > 0) this.#controller.enqueue(this.#shift());
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
    return this.#queue.size;
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
      while (this.#queue.size > 0) this.#controller.enqueue(this.#shift());
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
    const chunk = this.#queue.shift()!;
    this.#bytes -= chunk.byteLength;
    return chunk;
  }

  #clear(): void {
    this.#queue.clear();
    this.#bytes = 0;
    this.#waiting = false;
  }
}
