import { WireResponse } from '../http/wire-response.js';
import type { EventSink } from './connection.js';
import { DeferredSink } from './deferred-sink.js';
import type { EventStreamHub, StreamHandle, StreamOwner } from './index.js';
import { WebStreamSink } from './web-sink.js';

/**
 * The answer of `GET /api/v1/public/events`. The stream opens with the answer (`: connected`, replacing the key's
 * previous stream, and every event from then on), and its bytes wait until the answer is consumed: a
 * `Reference.fetch` caller gets a standard `Response` whose body is a `ReadableStream` (ended by the request's
 * signal); the node adapter instead calls {@link EventStreamResponse.attach} with a sink that writes each frame
 * straight to the socket, so a fan-out costs no web stream, no reader promise and no copy per stream. Both get
 * the same bytes.
 *
 * @example
 * ```ts
 * const res = new EventStreamResponse(hub, { keyId, merchantId, mode }, headers, request);
 * const web = res.toResponse(); // Response with a ReadableStream body
 * // or, in an adapter: const gone = res.attach(sink); socket.once('close', gone);
 * ```
 */
export class EventStreamResponse extends WireResponse {
  readonly #sink = new DeferredSink();
  readonly #handle: StreamHandle;
  readonly #request: Request | undefined;

  /**
   * @param headers Lower-case names; taken over, not copied.
   * @param request The request being answered; its `signal` ends the web stream (read only on that path, since
   *   reading it costs the node adapter a full Request per stream).
   */
  constructor(hub: EventStreamHub, owner: StreamOwner, headers: Record<string, string>, request?: Request) {
    super(200, '', headers);
    this.#request = request;
    this.#handle = hub.attach({ ...owner, sink: this.#sink });
    // `body` is the stream, as on any streaming Response (WireResponse keeps its text there).
    Object.defineProperty(this, 'body', { get: () => this.toResponse().body, enumerable: true });
  }

  /**
   * Sends the stream to `sink` (what is waiting first), and returns what to call when the client goes away.
   * Returns undefined when the stream already went somewhere (a `Response` body, or an earlier attach).
   */
  attach(sink: EventSink): (() => void) | undefined {
    if (this.#sink.bound || this.settled) return undefined;
    this.#sink.bind(sink);
    // Not `this`: the answer (and the request it holds) can go once its head is written.
    const handle = this.#handle;
    return () => handle.abort();
  }

  /** Nobody will read this answer (the client left before it was written): the stream leaves the hub. */
  cancel(): void {
    this.#handle.abort();
  }

  protected override responseBody(): ConstructorParameters<typeof Response>[0] {
    // Attached elsewhere already: a stream is never carried twice.
    if (this.#sink.bound) return null;
    const web = new WebStreamSink();
    const handle = this.#handle;
    web.onCancel = () => handle.abort();
    this.#sink.bind(web);
    const signal = this.#request?.signal;
    if (signal && !handle.closed) {
      if (signal.aborted) handle.abort();
      else {
        // Removed when the stream goes another way, so a long-lived signal does not keep dead streams alive.
        const onAbort = () => handle.abort();
        signal.addEventListener('abort', onAbort, { once: true });
        handle.detach = () => signal.removeEventListener('abort', onAbort);
      }
    }
    return web.stream;
  }
}
