import { type StreamEventsOptions, streamEvents } from '../client/event-stream.js';
import type { Logger } from '../client/logger.js';
import type { Transport } from '../client/transport.js';
import type { SseEvent } from '../schemas/events.js';
import { pathOf } from '../schemas/operations.js';

/**
 * What `client.events.stream()` returns: the events, and `close()`.
 *
 * @example
 * const stream: EventStream = client.events.stream();
 * setTimeout(() => stream.close(), 60_000);
 */
export type EventStream = AsyncIterable<SseEvent> & { close(): void };

/**
 * The realtime event stream (spec 4.8, 6.2). Reached as `client.events`.
 *
 * @example
 * for await (const ev of client.events.stream()) if (ev.kind === 'payment.status_changed') console.log(ev.payload);
 */
export interface Events {
  /**
   * Opens the event stream (`events.stream`, spec 4.8) and yields each event; reconnects by itself after a break. Each connection attempt
   * gets fresh headers (bearer auth and, with a signing secret, the signature of the empty body).
   * One stream per key: a second stream with the same key replaces the first. `close()` or the signal ends it.
   * Across replicas, pass a `lease` (`memoryLease()`, `redisLease(redis)` from `psp-sdk/replicas`): only its
   * holder connects, the others wait (yielding nothing) and take over within the lease time when it goes.
   *
   * @example
   * const stream = client.events.stream({ signal: AbortSignal.timeout(60_000) });
   * for await (const ev of stream) console.log(ev.kind, ev.payload.id);
   *
   * @example
   * import { redisLease } from 'psp-sdk/replicas';
   * for await (const ev of client.events.stream({ lease: redisLease(redis, { ttlMs: 10_000 }) })) handle(ev);
   */
  stream(options?: StreamEventsOptions): EventStream;
}

/**
 * `client.events` over a transport: a plain object (the namespace holds no state of its own).
 *
 * @example
 * const events = eventsOf(transport, fetch, logger, userAgent);
 */
export function eventsOf(
  transport: Transport,
  fetchFn: typeof fetch,
  logger: Logger | undefined,
  userAgent: string | undefined,
): Events {
  return {
    stream: (options) =>
      streamEvents(
        {
          url: transport.url(pathOf('events.stream')),
          fetch: fetchFn,
          headers: transport.credentials,
          baseUrl: transport.baseUrl,
          userAgent,
          logger,
          redact: transport.redact,
          middleware: transport.middleware,
          tap: transport.tap,
        },
        options,
      ),
  };
}
