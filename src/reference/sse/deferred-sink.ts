import type { EventSink } from './connection.js';

/**
 * A sink that holds a stream's first bytes until the answer knows where they go (a `ReadableStream`, or the
 * node socket), then hands them over in order and forwards everything after. The hub's limits apply while it
 * holds them, as on any sink.
 *
 * @example
 * ```ts
 * const deferred = new DeferredSink();
 * hub.attach({ keyId, merchantId, sink: deferred }); // `: connected` waits here
 * deferred.bind(new WebStreamSink());                // and is the stream's first chunk
 * ```
 */
export class DeferredSink implements EventSink {
  #target: EventSink | undefined;
  #queue: Uint8Array[] = [];
  #bytes = 0;
  /** How the stream ended before it was bound: `end` with its last chunk, or `abort`. */
  #ended: { last?: Uint8Array } | 'aborted' | undefined;

  /** True once the bytes have somewhere to go. */
  get bound(): boolean {
    return this.#target !== undefined;
  }

  get idle(): boolean {
    return this.#target ? this.#target.idle : false;
  }

  get bufferedBytes(): number {
    return this.#target ? this.#target.bufferedBytes : this.#bytes;
  }

  get bufferedMessages(): number {
    return this.#target ? this.#target.bufferedMessages : this.#queue.length;
  }

  write(chunk: Uint8Array): void {
    if (this.#target) this.#target.write(chunk);
    else {
      this.#queue.push(chunk);
      this.#bytes += chunk.byteLength;
    }
  }

  end(last?: Uint8Array): void {
    if (this.#target) this.#target.end(last);
    else this.#ended ??= last ? { last } : {};
  }

  abort(): void {
    if (this.#target) this.#target.abort();
    else {
      this.#ended = 'aborted';
      this.#queue = [];
      this.#bytes = 0;
    }
  }

  /** Sends what waits to `target`, in order (and the end, if the stream already ended), then forwards to it. */
  bind(target: EventSink): void {
    if (this.#target) throw new Error('The event stream already has a destination.');
    this.#target = target;
    const queue = this.#queue;
    this.#queue = [];
    this.#bytes = 0;
    for (const chunk of queue) target.write(chunk);
    if (this.#ended === 'aborted') target.abort();
    else if (this.#ended) target.end(this.#ended.last);
  }
}
