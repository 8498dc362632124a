import { CODE } from '../../schemas/errors.js';
import { Buffer } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { DEFAULTS } from '../domain/defaults.js';
import { type DomainError, refuse } from '../domain/errors.js';
import { payloadTooLarge } from '../http/body.js';

/** Limits of the node adapter's body reads; see `ListenOptions`. */
export interface BodyLimits {
  /** A body must arrive whole within this many milliseconds of the route asking for it. */
  timeoutMs: number;
  /** Most bytes of request bodies held at once, over every connection. */
  maxBytesInFlight: number;
}

/**
 * The bytes of request bodies the adapter holds at once, over every connection: read and not yet handed back when
 * the request's answer is ready. Bounded, so a crowd of uploads cannot grow the process without bound; and each
 * owner (a merchant) may hold only a share of it, so one key's stalled uploads cannot refuse every other merchant's.
 */
export class BodyBudget {
  #held = 0;
  readonly #byOwner = new Map<string, number>();
  /**
   * Most bytes one owner may hold: a quarter of the bound, and never less than one whole public body (1 MiB) while
   * the bound allows it.
   */
  readonly share: number;

  constructor(readonly max: number) {
    this.share = Math.max(Math.floor(max / 4), Math.min(max, DEFAULTS.maxBodyBytes));
  }

  get held(): number {
    return this.#held;
  }

  /**
   * Takes `n` bytes from the budget for `owner` (none: the admin, bound by the whole budget only); false (and
   * nothing taken) when that would pass the bound or the owner's share.
   */
  take(n: number, owner?: string): boolean {
    if (this.#held + n > this.max) return false;
    if (owner !== undefined) {
      const mine = (this.#byOwner.get(owner) ?? 0) + n;
      if (mine > this.share) return false;
      this.#byOwner.set(owner, mine);
    }
    this.#held += n;
    return true;
  }

  give(n: number, owner?: string): void {
    this.#held -= n;
    if (owner === undefined) return;
    const mine = (this.#byOwner.get(owner) ?? 0) - n;
    if (mine > 0) this.#byOwner.set(owner, mine);
    else this.#byOwner.delete(owner);
  }
}

/** A request's body, read only when the app asks for it (after section 5), and given back to the budget once. */
export interface LazyBody {
  /** Reads the body, at most `maxBytes`, counted against `owner`'s share of the budget (see {@link BodyBudget}). */
  read(maxBytes: number, owner?: string): Promise<Uint8Array>;
  /** Hands the bytes back to the budget: the request has its answer. */
  release(): void;
}

const EMPTY = new Uint8Array(0);

/**
 * The body of `incoming`, read on demand with a per-route cap, the body timeout and the shared budget: a
 * `Content-Length` over the cap is refused unread, a body that grows past the cap is cut there, a body slower than
 * the timeout is cut, and a chunk the budget cannot hold is a 503 (retry shortly). What is left unread is drained by
 * @hono/node-server after the answer (at most 500 ms, then the socket closes). The bytes are also left as
 * `rawBody`, so a handler that reads `request.body` gets the same ones.
 */
export function lazyBody(
  incoming: IncomingMessage & { rawBody?: Buffer | undefined },
  budget: BodyBudget,
  limits: BodyLimits,
): LazyBody {
  let held = 0;
  let heldBy: string | undefined;
  let reading: Promise<Uint8Array> | undefined;
  const read = (maxBytes: number): Promise<Uint8Array> =>
    new Promise((resolve, reject) => {
      if (incoming.readableEnded) return resolve(EMPTY);
      if (Number(incoming.headers['content-length']) > maxBytes) return reject(payloadTooLarge(maxBytes));
      const chunks: Buffer[] = [];
      let total = 0;
      const stop = (error?: DomainError) => {
        clearTimeout(timer);
        incoming.off('data', onData);
        incoming.off('end', onEnd);
        incoming.off('close', onClose);
        if (error) {
          incoming.pause();
          reject(error);
        }
      };
      const timer = setTimeout(
        () =>
          stop(
            refuse(CODE.bad_request, `The request body did not arrive within ${limits.timeoutMs / 1000} s.`),
          ),
        limits.timeoutMs,
      );
      const onData = (chunk: Buffer) => {
        total += chunk.byteLength;
        if (total > maxBytes) return stop(payloadTooLarge(maxBytes));
        if (!budget.take(chunk.byteLength, heldBy))
          return stop(
            refuse(
              CODE.service_unavailable,
              'The reference is reading too many request bodies at once; retry shortly.',
              { 'retry-after': '1' },
            ),
          );
        held += chunk.byteLength;
        chunks.push(chunk);
      };
      const onEnd = () => {
        stop();
        const whole = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
        incoming.rawBody = whole;
        // A plain Uint8Array view, as a web stream gives (a Buffer's toString and slice differ).
        resolve(new Uint8Array(whole.buffer, whole.byteOffset, whole.byteLength));
      };
      // Nobody is left to answer, and a cut-off body must never reach a route: a refund whose body was cut off
      // would refund the whole balance.
      const onClose = () => stop(refuse(CODE.bad_request, 'The client went away.'));
      incoming.on('data', onData);
      incoming.on('end', onEnd);
      incoming.on('close', onClose);
      incoming.resume();
    });
  return {
    read(maxBytes, owner) {
      if (!reading) {
        heldBy = owner;
        reading = read(maxBytes);
      }
      return reading;
    },
    release() {
      budget.give(held, heldBy);
      held = 0;
    },
  };
}

/**
 * Cuts a GET or HEAD whose declared body has not all come within `timeoutMs` of the request, as any body must: the
 * service never reads such a body (a GET has none in the Fetch standard), @hono/node-server drains only other
 * methods' bodies, and node would wait for it, answer or not, up to its 300 s request timeout. The connection
 * closes then, an answer still being written (an event stream) included.
 */
export function cutSlowUnreadBody(incoming: IncomingMessage, timeoutMs: number): void {
  if (incoming.method !== 'GET' && incoming.method !== 'HEAD') return;
  const { 'content-length': length, 'transfer-encoding': chunked } = incoming.headers;
  if (!chunked && !(Number(length) > 0)) return;
  const socket = incoming.socket;
  const timer = setTimeout(() => {
    if (!incoming.complete) socket.destroy();
  }, timeoutMs);
  timer.unref?.();
  incoming.once('close', () => clearTimeout(timer));
}
