// The event stream, `client.events.stream()`: this file runs the steps (connect.ts, parse.ts, reconnect.ts in
// sse/) one connection after another, and keeps what spans them: the lease, the heartbeat watchdog, the
// client's tap for `waitFor`, and the end.
import type { SseEvent } from '../schemas/events.js';

export type { SseEvent } from '../schemas/events.js';
import type { Redactor } from '../internal/redact.js';
import { PspApiError, redactError } from './errors.js';
import { type Logger, log } from './logger.js';
import { release } from './release.js';
import { createSendStep, type SendOptions } from './send.js';
import { connect } from './sse/connect.js';
import { eventParser } from './sse/parse.js';
import { type BackoffOptions, reconnection } from './sse/reconnect.js';
import { sleep } from './wait.js';

/**
 * How the stream (`events.stream`) is reached; the client builds it. Every connection attempt goes out
 * through the client's one send step (`send.ts`), built from these `fetch`, `middleware`, `headers` and
 * `userAgent`.
 */
export interface EventStreamTransport extends SendOptions {
  /** Absolute URL of the `events.stream` operation. */
  url: string;
  logger?: Logger | undefined;
  /** The client's redaction, for the error an answer ends the stream with. Default: secrets by their form only. */
  redact?: Redactor | undefined;
  /** Where the client's `waitFor` calls listen to this stream (they never open one of their own). */
  tap?: StreamTap | undefined;
}

/**
 * The events a client's open streams receive, shared with its `waitFor` calls: `live` counts the connections
 * open now; each listener gets every event as it is parsed, and `undefined` when a connection ends (events may
 * be lost until the next one: time to read the object again).
 */
export interface StreamTap {
  live: number;
  listeners: Set<(event: SseEvent | undefined) => void>;
}

/**
 * A lease that lets one stream among many (replicas of one service, each with the same API key) hold the
 * connection: `memoryLease()` or `redisLease(redis)` from `psp-sdk/replicas`, or your own with the same promise.
 *
 * @example
 * import { redisLease } from 'psp-sdk/replicas';
 * const stream = client.events.stream({ lease: redisLease(redis) });
 */
export interface Lease {
  /**
   * Resolves once the caller holds the lease, waiting as long as it takes, or with `undefined` when `signal`
   * aborts first. The holder keeps it renewed until `signal` aborts, then releases it. The hold's `lost` aborts
   * if the lease is lost (a renewal refused, failed or not confirmed in time) while it cannot yet have run out
   * in the store: stop using it at once, and nobody else can have it before then.
   */
  acquire(signal: AbortSignal): Promise<{ readonly lost: AbortSignal } | undefined>;
}

/** Why the stream dropped a connection; reported to `onDisconnect` and `onReconnect`. */
export type DisconnectReason =
  | 'network_error'
  | 'heartbeat_timeout'
  | 'stream_ended'
  | 'unexpected_content_type'
  | 'stream_too_large'
  | `http_${number}`;

/** Options of `client.events.stream()`. */
export interface StreamEventsOptions {
  /** Ends the stream: the iteration finishes cleanly, without an error. */
  signal?: AbortSignal | undefined;
  /**
   * Called after the stream connected again following a break, before any event of the new connection is
   * yielded. Events sent while it was away are lost (best-effort channel): reconcile with a GET, or rely on
   * webhooks. `attempt` is how many tries the reconnection took; `reason` why the previous connection ended.
   */
  onReconnect?: ((info: { attempt: number; reason: string }) => void) | undefined;
  /** Called when a connection is lost and a reconnection is scheduled in `delayMs`. */
  onDisconnect?: ((info: { attempt: number; reason: DisconnectReason; delayMs: number }) => void) | undefined;
  /**
   * Called once when the stream ends for good: `replaced` (another connection with the same key took over;
   * spec: one connection per key, so it does not reconnect), `closed` (`close()`), or `aborted` (the signal).
   */
  onEnd?: ((info: { reason: 'replaced' | 'closed' | 'aborted' }) => void) | undefined;
  /**
   * Silence, in ms, after which the connection counts as dead and is replaced: no byte (not even the 25 s
   * `: ping`) for this long. Default 62 500 (2.5 heartbeats).
   */
  heartbeatTimeoutMs?: number | undefined;
  /** Reconnection delays: exponential from `initialDelayMs` (default 1000) to `maxDelayMs` (default 30 000), jittered. */
  backoff?: BackoffOptions | undefined;
  /** Consecutive failed attempts before the stream gives up with a `PspConnectionError`. Default: never. */
  maxRetries?: number | undefined;
  /** Source of jitter in [0, 1); for tests. Default `Math.random`. */
  random?: (() => number) | undefined;
  /**
   * One stream among many replicas: only the holder of `lease` connects. Until it holds it the iterator yields
   * nothing (it waits, trying again about every third of the lease's time, until `close()` or the signal); while
   * holding it renews it; on losing it (a renewal refused, failed or late) it closes the connection before the
   * lease can run out elsewhere, then waits again; `close()`, the signal or an error release it at once.
   * Default: none (the stream connects at once).
   */
  lease?: Lease | undefined;
  /**
   * Called when the stream starts (`true`) or stops (`false`) holding its `lease`. Events sent while no replica
   * held it are lost: on `true`, catch up with a list call.
   */
  onLeaseChange?: ((info: { holding: boolean }) => void) | undefined;
}

const WATCHDOG = 'heartbeat_timeout';

// Over 80 lines: the closure that owns the stream's state (its end, lease and stop) and its run loop; one connection's read is readConnection.
/**
 * The realtime event stream (spec 4.8, 6.2) as an async iterable of envelopes `{ kind, payload, at }`. It
 * reconnects by itself with jittered exponential backoff after a network break, a 408, 429 or 5xx but 501
 * (honouring `Retry-After`), an ended stream, or heartbeat silence; it stops on `: replaced`, on `close()` and on
 * the signal (the loop just ends), and throws the typed API error on 401, 403, 501 and other 4xx answers. A
 * malformed message is logged and skipped; kinds newer than this SDK pass through (handle them in a `default`
 * branch). Never more than one connection at a time; the iterable can be iterated once.
 *
 * @example
 * const stream = streamEvents(transport, { onReconnect: () => void reconcile() });
 * for await (const ev of stream) {
 *   if (ev.kind === 'payment.status_changed') console.log(ev.payload.id, ev.payload.status);
 * }
 */
export function streamEvents(
  transport: EventStreamTransport,
  options: StreamEventsOptions = {},
): AsyncIterable<SseEvent> & { close(): void } {
  const stop = new AbortController();
  let endReason: 'replaced' | 'closed' | 'aborted' | undefined;
  let started = false;
  // The lease this stream holds now; it is released when `stop` aborts.
  let hold: { readonly lost: AbortSignal } | undefined;
  const holding = (now: typeof hold) => {
    if (!hold !== !now) safely(options.onLeaseChange, { holding: !!now });
    hold = now;
  };
  const end = (reason: 'replaced' | 'closed' | 'aborted') => {
    if (endReason) return;
    endReason = reason;
    stop.abort();
    holding(undefined);
    safely(options.onEnd, { reason });
  };
  const onAbort = () => end('aborted');
  if (options.signal?.aborted) end('aborted');
  else options.signal?.addEventListener('abort', onAbort, { once: true });

  /** Waits (yielding nothing) until this replica holds the lease; false when the stream stops first. */
  async function takeLease(
    lease: Lease,
    logger: Logger | undefined,
    current: () => AbortController | undefined,
  ) {
    const got = await lease.acquire(stop.signal);
    if (!got) return false;
    holding(got);
    got.lost.addEventListener('abort', () => {
      if (stop.signal.aborted) return;
      // Closed at once, before another replica may open one; then the loop waits for the lease again.
      current()?.abort('lease_lost');
      log(logger, 'warn', 'psp-sdk: event stream lease lost; closed until it is held again');
      holding(undefined);
    });
    return true;
  }

  // The stream's run: lease -> connect and read -> sleep, until stopped.
  async function* run(): AsyncGenerator<SseEvent, void, undefined> {
    const send = createSendStep(transport);
    const r = reconnection(options);
    let current: AbortController | undefined;
    try {
      while (!stop.signal.aborted) {
        if (options.lease && !hold && !(await takeLease(options.lease, transport.logger, () => current)))
          return;
        current = new AbortController();
        const ended = yield* readConnection({
          transport,
          options,
          send,
          r,
          stop: stop.signal,
          conn: current,
          end,
        });
        if (ended === 'stopped') return;
        // Not a failure: the loop's top waits for the lease again, which paces it.
        if (options.lease && !hold) continue;
        const info = r.broke(ended.reason, ended.retryAfterMs);
        log(transport.logger, 'warn', 'psp-sdk: event stream disconnected, reconnecting', info);
        safely(options.onDisconnect, info);
        await sleep(info.delayMs, stop.signal);
      }
    } catch (err) {
      // An error ends the stream too, but it is the error the app sees, not onEnd.
      endReason ??= 'closed';
      stop.abort();
      throw err;
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
      end('closed');
      // An error ended it (`end` then did nothing): the lease was released with `stop`.
      holding(undefined);
    }
  }

  return {
    [Symbol.asyncIterator]() {
      if (started)
        throw new TypeError('This event stream is already being iterated; open another with stream().');
      started = true;
      return run();
    },
    close() {
      end('closed');
    },
  };
}

/** What one connection is read with: the stream's own parts and its connection's abort. */
interface ConnectionContext {
  transport: EventStreamTransport;
  options: StreamEventsOptions;
  send: ReturnType<typeof createSendStep>;
  r: ReturnType<typeof reconnection>;
  /** Aborted when the stream stops. */
  stop: AbortSignal;
  /** This connection's abort: the watchdog, a lost lease and the stream's stop end it. */
  conn: AbortController;
  /** Ends the stream (on `: replaced`). */
  end: (reason: 'replaced') => void;
}

// Over 80 lines: one connection's whole life in one place: open, read, and close in its finally.
/**
 * One connection: opens it, reads it under the heartbeat watchdog, parses its messages, shows them to the tap and
 * yields them. Returns why it ended (`stopped` when the stream stopped, nothing to reconnect); the connection is
 * closed (its reader released, the tap told) before it returns, so two are never open at once. An API error of the
 * answer (401, 403, other 4xx) is thrown, redacted.
 */
async function* readConnection(
  c: ConnectionContext,
): AsyncGenerator<
  SseEvent,
  'stopped' | { reason: DisconnectReason; retryAfterMs?: number | undefined },
  undefined
> {
  const { transport, options, r, stop, conn } = c;
  const { logger, tap } = transport;
  const abortConn = () => conn.abort('stopped');
  stop.addEventListener('abort', abortConn, { once: true });
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  conn.signal.addEventListener('abort', () => void release(reader), { once: true });
  let watchdog: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    clearTimeout(watchdog);
    watchdog = setTimeout(() => conn.abort(WATCHDOG), options.heartbeatTimeoutMs ?? 62_500);
  };
  const parser = eventParser(logger);
  let live = false;
  let reason: DisconnectReason = 'stream_ended';
  let retryAfterMs: number | undefined;
  try {
    arm();
    const opened = await connect(c.send, transport.url, conn.signal, r.attempt);
    if ('failed' in opened) {
      reason = opened.failed;
      retryAfterMs = opened.retryAfterMs;
    } else {
      log(logger, 'debug', 'psp-sdk: event stream connected', { attempt: r.attempt });
      const after = r.opened();
      if (tap) {
        live = true;
        tap.live++;
      }
      if (after) {
        log(logger, 'info', 'psp-sdk: event stream reconnected', after);
        safely(options.onReconnect, after);
      }
      reader = opened.body.getReader();
      for (;;) {
        arm();
        const { value, done } = await reader.read();
        clearTimeout(watchdog);
        if (done) break;
        const events = parser.feed(value);
        if (events.length) r.worked();
        if (tap) for (const ev of events) for (const l of tap.listeners) safely(l, ev);
        // Watchdog paused while the app handles events: a slow consumer is not a silent server.
        for (const ev of events) {
          if (stop.aborted) break;
          yield ev;
        }
        if (parser.replaced) {
          log(logger, 'warn', 'psp-sdk: event stream replaced by another connection with the same key');
          c.end('replaced');
        }
        if (parser.overflow) {
          reason = 'stream_too_large';
          break;
        }
        if (stop.aborted) return 'stopped';
      }
    }
  } catch (err) {
    if (stop.aborted) return 'stopped';
    if (err instanceof PspApiError) throw transport.redact ? redactError(err, transport.redact) : err;
    reason = 'network_error';
    const error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    log(logger, 'debug', 'psp-sdk: event stream connection failed', { error });
  } finally {
    clearTimeout(watchdog);
    r.closed(parser.retryMs);
    stop.removeEventListener('abort', abortConn);
    // Close this connection before any other opens: never two at once.
    conn.abort('done');
    await release(reader);
    if (live && tap) {
      tap.live--;
      for (const l of tap.listeners) safely(l, undefined);
    }
  }
  // Whatever ended the connection (a failed read, an ended body), heartbeat silence is the cause if it fired.
  if (conn.signal.reason === WATCHDOG) reason = WATCHDOG;
  return stop.aborted ? 'stopped' : { reason, retryAfterMs };
}

function safely<A>(fn: ((info: A) => void) | undefined, info: A): void {
  try {
    fn?.(info);
  } catch {
    // An app callback that throws must not kill the stream.
  }
}
