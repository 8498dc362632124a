import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { SseEvent } from '../schemas/events.js';
import { PUBLIC_PREFIX, pathOf } from '../schemas/operations.js';

export type { SseEvent } from '../schemas/events.js';
import type { Redactor } from '../internal/redact.js';
import { apiErrorOf, PspApiError, PspConnectionError, parseRetryAfter, redactError } from './errors.js';
import { type Logger, log } from './logger.js';
import { release } from './release.js';
import { createSendStep, type SendOptions } from './send.js';
import { type BackoffOptions, backoffDelay, sleep } from './sse/backoff.js';
import { parseEnvelope } from './sse/envelope.js';

/**
 * How the stream (`events.stream`) is reached; the client builds it. Every connection attempt goes out
 * through the client's one send step (`send.ts`), built from these `fetch`, `middleware` and `headers`.
 */
export interface EventStreamTransport extends SendOptions {
  /** Absolute URL of the `events.stream` operation. */
  url: string;
  /** Sent on every connection, before the middleware (which may change it), as on every call. */
  userAgent?: string | undefined;
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
// A connection open this long has really worked (more than one 25 s heartbeat): only then do failures restart
// from zero. `: connected` alone does not count; a server that greets and then fails would never reach maxRetries.
const STABLE_MS = 30_000;
const TEMPLATE = `${PUBLIC_PREFIX}${pathOf('events.stream')}`;
const MAX_BUFFER = 1 << 20;
const MAX_RETRY_AFTER_MS = 600_000;
// 408 and 429 are "later, please"; 5xx are the server's trouble. Any other 4xx will not heal by retrying.
const retryable = (status: number) => status >= 500 || status === 408 || status === 429;

/**
 * The realtime event stream (spec 4.8, 6.2) as an async iterable of envelopes `{ kind, payload, at }`. It
 * reconnects by itself with jittered exponential backoff after a network break, a 5xx/429 (honouring
 * `Retry-After`), an ended stream, or heartbeat silence; it stops on `: replaced`, on `close()` and on the
 * signal (the loop just ends), and throws the typed API error on 401, 403 and other 4xx answers. A malformed
 * message is logged and skipped; kinds newer than this SDK pass through (handle them in a `default` branch).
 * Never more than one connection at a time; the iterable can be iterated once.
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

  async function* run(): AsyncGenerator<SseEvent, void, undefined> {
    const send = createSendStep(transport);
    const logger = transport.logger;
    const tap = transport.tap;
    let failures = 0;
    let reconnectReason: string | undefined;
    let serverRetryMs: number | undefined;
    let current: AbortController | undefined;
    try {
      while (!stop.signal.aborted) {
        if (options.lease && !hold) {
          // Waits (yielding nothing) until this replica holds the lease; undefined when the stream stops first.
          const got = await options.lease.acquire(stop.signal);
          if (!got) return;
          holding(got);
          got.lost.addEventListener('abort', () => {
            if (stop.signal.aborted) return;
            // Closed at once, before another replica may open one; then the loop waits for the lease again.
            current?.abort('lease_lost');
            log(logger, 'warn', 'psp-sdk: event stream lease lost; closed until it is held again');
            holding(undefined);
          });
        }
        const conn = new AbortController();
        current = conn;
        const abortConn = () => conn.abort('stopped');
        stop.signal.addEventListener('abort', abortConn, { once: true });
        let stable: ReturnType<typeof setTimeout> | undefined;
        let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
        conn.signal.addEventListener('abort', () => void release(reader), { once: true });
        let watchdog: ReturnType<typeof setTimeout> | undefined;
        const arm = () => {
          clearTimeout(watchdog);
          watchdog = setTimeout(() => conn.abort(WATCHDOG), options.heartbeatTimeoutMs ?? 62_500);
        };
        let live = false;
        let reason: DisconnectReason = 'stream_ended';
        let retryAfterMs: number | undefined;
        try {
          arm();
          const headers: Record<string, string> = {
            accept: 'text/event-stream',
            'cache-control': 'no-cache',
          };
          if (transport.userAgent) headers['user-agent'] = transport.userAgent;
          // The connection stays ours to end: the send step keeps this signal on whatever the middleware passes.
          const request = new Request(transport.url, { headers, signal: conn.signal, redirect: 'manual' });
          const context = {
            operation: 'events.stream',
            attempt: failures + 1,
            urlTemplate: TEMPLATE,
          } as const;
          const res = await send(request, context);
          if (!res.ok && !retryable(res.status)) {
            const error = await apiErrorOf(res, { attempts: failures + 1 });
            throw transport.redact ? redactError(error, transport.redact) : error;
          }
          if (!res.ok || !res.body || !/^text\/event-stream/i.test(res.headers.get('content-type') ?? '')) {
            // A retryable error answer, or not a stream: the body is not needed, release the connection.
            await release(res.body);
            reason = res.ok ? 'unexpected_content_type' : `http_${res.status}`;
            const after = res.ok ? undefined : parseRetryAfter(res.headers.get('retry-after'));
            // Honoured as given, up to 10 minutes: a stream that silently waits for days helps nobody.
            if (after !== undefined) retryAfterMs = Math.min(after, MAX_RETRY_AFTER_MS);
          } else {
            log(logger, 'debug', 'psp-sdk: event stream connected', { attempt: failures + 1 });
            stable = setTimeout(() => (failures = 0), STABLE_MS);
            if (tap) {
              live = true;
              tap.live++;
            }
            if (reconnectReason !== undefined) {
              const info = { attempt: failures, reason: reconnectReason };
              log(logger, 'info', 'psp-sdk: event stream reconnected', info);
              safely(options.onReconnect, info);
            }
            reader = res.body.getReader();
            const queue: SseEvent[] = [];
            let replaced = false;
            let overflow = false;
            const parser = createParser({
              maxBufferSize: MAX_BUFFER,
              onEvent: (msg: EventSourceMessage) => {
                const ev = parseEnvelope(msg.event, msg.data);
                if (ev) {
                  queue.push(ev);
                  if (tap) for (const l of tap.listeners) safely(l, ev);
                } else
                  log(logger, 'warn', 'psp-sdk: skipped a malformed event', {
                    event: msg.event,
                    bytes: msg.data.length,
                  });
              },
              onComment: (comment) => {
                if (comment.trim() === 'replaced') replaced = true;
              },
              onRetry: (ms) => {
                // Never below the 1 s default: `retry: 0` from a broken server would reconnect in a tight loop.
                serverRetryMs = Math.max(ms, 1000);
              },
              onError: (err) => {
                if (err.type === 'max-buffer-size-exceeded') overflow = true;
              },
            });
            const decoder = new TextDecoder();
            for (;;) {
              arm();
              const { value, done } = await reader.read();
              clearTimeout(watchdog);
              if (done) break;
              parser.feed(decoder.decode(value, { stream: true }));
              if (queue.length) failures = 0;
              // Watchdog paused while the app handles events: a slow consumer is not a silent server.
              while (queue.length && !stop.signal.aborted) yield queue.shift()!;
              if (replaced) {
                log(logger, 'warn', 'psp-sdk: event stream replaced by another connection with the same key');
                end('replaced');
              }
              if (overflow) {
                reason = 'stream_too_large';
                break;
              }
              if (stop.signal.aborted) return;
            }
          }
        } catch (err) {
          if (stop.signal.aborted) return;
          if (err instanceof PspApiError) throw err;
          reason = 'network_error';
          const error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
          log(logger, 'debug', 'psp-sdk: event stream connection failed', { error });
        } finally {
          clearTimeout(watchdog);
          clearTimeout(stable);
          stop.signal.removeEventListener('abort', abortConn);
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
        if (stop.signal.aborted) return;
        // Not a failure: the loop's top waits for the lease again, which paces it.
        if (options.lease && !hold) continue;
        failures++;
        if (options.maxRetries !== undefined && failures > options.maxRetries)
          throw new PspConnectionError(`Event stream gave up after ${failures} failed attempts (${reason}).`);
        // The server's `retry:` stands in for an initial delay the app did not set.
        const backoff = {
          ...options.backoff,
          initialDelayMs: options.backoff?.initialDelayMs ?? serverRetryMs,
        };
        // `Retry-After: 0` (or a date past) counts as absent: honoured, it would reconnect at once, without end.
        const delayMs = retryAfterMs || backoffDelay(failures, backoff, options.random);
        log(logger, 'warn', 'psp-sdk: event stream disconnected, reconnecting', {
          reason,
          attempt: failures,
          delayMs,
        });
        safely(options.onDisconnect, { attempt: failures, reason, delayMs });
        reconnectReason = reason;
        await sleep(delayMs, stop.signal);
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

function safely<A>(fn: ((info: A) => void) | undefined, info: A): void {
  try {
    fn?.(info);
  } catch {
    // An app callback that throws must not kill the stream.
  }
}
