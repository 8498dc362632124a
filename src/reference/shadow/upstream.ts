/**
 * The shadow's side of the upstream: one request under a deadline for its headers and one for its body, and the
 * answer read for comparison only up to a cap. A shadow stands in front of a staging build, where answers go wrong:
 * an answer of 512 MiB read whole took the shadow to 2 GiB, and an upstream that sent its headers and 6 bytes held
 * the caller until the caller gave up (issue 40, N1).
 */

/** The limits of one upstream exchange (ShadowOptions documents each). */
export interface UpstreamLimits {
  maxCompareBytes: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
}

/** What became of the answer's body. */
export type UpstreamBody =
  /** Read whole, within the cap and the deadline. */
  | { kind: 'read'; bytes: Uint8Array }
  /** Over the cap: what was read and the rest, streamed to the caller unread. */
  | { kind: 'too-large'; stream: ReadableStream<Uint8Array> }
  /** The deadline passed before the body ended: the exchange is aborted (the socket closed). */
  | { kind: 'timeout' }
  /** The connection dropped during the body. */
  | { kind: 'dropped' };

/** Why {@link UpstreamExchange.answer} has no answer. */
export type NoAnswer = 'timeout' | 'unreachable';

/**
 * One request to the upstream. Aborting it (the caller went away, a deadline passed) aborts the fetch, which
 * closes its connection.
 */
export class UpstreamExchange {
  readonly #abort = new AbortController();
  readonly #limits: UpstreamLimits;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timedOut = false;

  constructor(limits: UpstreamLimits, callerSignal: AbortSignal | undefined) {
    this.#limits = limits;
    if (callerSignal?.aborted) this.#abort.abort(callerSignal.reason);
    else
      callerSignal?.addEventListener('abort', () => this.#abort.abort(callerSignal.reason), { once: true });
  }

  /** The signal to give the upstream's fetch. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** Runs `send` (the fetch) under the headers' deadline: its answer, or why there is none. */
  async answer(send: (signal: AbortSignal) => Promise<Response>): Promise<Response | NoAnswer> {
    this.#arm(this.#limits.headersTimeoutMs);
    try {
      return await send(this.#abort.signal);
    } catch {
      return this.#timedOut ? 'timeout' : 'unreachable';
    } finally {
      this.#disarm();
    }
  }

  /** Reads `answer`'s body under the body's deadline, up to the cap; past it, the rest goes to the caller unread. */
  async body(answer: Response): Promise<UpstreamBody> {
    if (!answer.body) return { kind: 'read', bytes: new Uint8Array(0) };
    const reader = answer.body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    this.#arm(this.#limits.bodyTimeoutMs);
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return { kind: 'read', bytes: concat(chunks, size) };
        chunks.push(value);
        size += value.byteLength;
        if (size > this.#limits.maxCompareBytes) return { kind: 'too-large', stream: rest(chunks, reader) };
      }
    } catch {
      return this.#timedOut ? { kind: 'timeout' } : { kind: 'dropped' };
    } finally {
      this.#disarm();
    }
  }

  /** Ends the exchange: its connection, if still open, closes. */
  close(): void {
    this.#disarm();
    this.#abort.abort();
  }

  #arm(ms: number): void {
    this.#timer = setTimeout(() => {
      this.#timedOut = true;
      this.#abort.abort(new DOMException('The upstream took too long.', 'TimeoutError'));
    }, ms);
  }

  #disarm(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/** The chunks read, then the rest of `reader`, pulled as the caller reads (so no more is held than a chunk). */
function rest(
  chunks: Uint8Array[],
  reader: ReadableStreamDefaultReader<Uint8Array>,
): ReadableStream<Uint8Array> {
  return new ReadableStream({
    async pull(controller) {
      const held = chunks.shift();
      if (held) return controller.enqueue(held);
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
