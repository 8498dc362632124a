import type { Clock, Timer } from '../domain/clock.js';
import type { EventBus } from '../domain/events.js';
import { limit } from '../util/limit.js';
import { Connection } from './connection.js';
import { CONNECTED, encodeMessage, PING, REPLACED, toSseEvent } from './encode.js';

/** Who a stream belongs to: the API key that opened it, its merchant, and the key's mode. */
export interface StreamOwner {
  keyId: string;
  merchantId: string;
  /** A test key sees only test objects' events; without it, the stream gets every event of the merchant. */
  mode?: 'test' | 'live' | undefined;
}

/** What the hub needs from the reference, and its limits (per client). */
export interface EventStreamHubDeps {
  /** Domain events to stream. */
  bus: EventBus;
  /** The service clock; the heartbeat follows it. */
  clock: Clock;
  /** Most messages waiting for one slow reader before messages are dropped. Default: 256. */
  bufferSize?: number | undefined;
  /** Most bytes waiting for one slow reader before messages are dropped; at least 1 024. Default: 65 536. */
  bufferBytes?: number | undefined;
  /** Heartbeat period on the service clock, in ms. Default: 25 000 (spec 4.8). */
  heartbeatMs?: number | undefined;
}

/** The realtime stream of the `events.stream` operation: one connection per key, a bounded buffer per client. */
export interface EventStreamHub {
  /**
   * A `text/event-stream` body of the merchant's events: `: connected` first, then `event:`/`data:` messages and a
   * `: ping` every heartbeat. A second open with the same `keyId` writes `: replaced` on the first and closes it.
   * Aborting `signal` or cancelling the stream removes the connection at once. `mode` is the mode of the key that
   * opens the stream: a test key sees only test objects' events, as its GETs see only test objects.
   */
  open(args: StreamOwner & { signal?: AbortSignal | undefined }): ReadableStream<Uint8Array>;
  /**
   * Open connections, messages dropped for slow readers, and streams ended by a newer one with the same key
   * (`: replaced`), the last two since the hub started.
   */
  stats(): { connections: number; dropped: number; bufferedBytes: number; replaced: number };
  /** Ends the streams whose key fails `keep` (a restore: keys that no longer exist, or are revoked). */
  endWhere(keep: (keyId: string) => boolean): void;
  /** Ends every stream (their buffered messages are still delivered), stops the heartbeat and unsubscribes. */
  close(): void;
}

/**
 * Creates the SSE hub and subscribes it to `bus`. Each event is encoded once, and the same bytes go to every stream
 * of its merchant; one hub-wide repeating timer on the service clock sends the heartbeat.
 *
 * @example
 * ```ts
 * const hub = createEventStreamHub({ bus, clock });
 * return new Response(hub.open({ keyId, merchantId, signal: request.signal }), {
 *   headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
 * });
 * ```
 */
export function createEventStreamHub(deps: EventStreamHubDeps): EventStreamHub {
  const limits = {
    messages: limit('bufferSize', deps.bufferSize, 256),
    bytes: limit('bufferBytes', deps.bufferBytes, 65_536, 1024),
  };
  const heartbeatMs = limit('heartbeatMs', deps.heartbeatMs, 25_000);
  const byKey = new Map<string, Connection>();
  const byMerchant = new Map<string, Set<Connection>>();
  let dropped = 0;
  let replaced = 0;
  let closed = false;
  let heartbeat: Timer | undefined;

  // One timer for the hub while any stream is open; none while idle, so a manual clock has nothing to fire.
  // A repeating timer: a manual clock moved past many periods at once sends one ping, not one per period.
  const beat = () => {
    for (const c of byKey.values()) c.push(PING);
  };

  const gone = (c: Connection) => {
    if (byKey.get(c.keyId) === c) byKey.delete(c.keyId);
    const set = byMerchant.get(c.group);
    if (set?.delete(c) && set.size === 0) byMerchant.delete(c.group);
    if (byKey.size === 0) {
      heartbeat?.cancel();
      heartbeat = undefined;
    }
  };

  // Streams are grouped by merchant, or by merchant and mode when opened with a key's mode.
  const groupOf = (merchantId: string, mode: string | undefined) =>
    mode ? `${merchantId} ${mode}` : merchantId;

  const unsubscribe = deps.bus.subscribe((event) => {
    // An event of no mode (a merchant's own) goes to streams of either mode.
    const modes = event.mode ? [undefined, event.mode] : [undefined, 'test', 'live'];
    // A group's set is deleted when its last stream goes: one that is there has a stream to write to.
    const sets = modes.flatMap((mode) => byMerchant.get(groupOf(event.merchantId, mode)) ?? []);
    if (sets.length === 0) return;
    const bytes = encodeMessage(toSseEvent(event));
    for (const set of sets) {
      for (const c of set) if (!c.push(bytes)) dropped++;
    }
  });

  return {
    open({ signal, keyId, merchantId, mode }) {
      // A closed hub, or a request already gone, gets a stream that ends at once.
      if (closed || signal?.aborted) return new ReadableStream({ start: (controller) => controller.close() });
      const group = groupOf(merchantId, mode);
      const c = new Connection(keyId, group, limits, gone, signal);
      const previous = byKey.get(keyId);
      if (previous) {
        replaced++;
        previous.end(REPLACED);
      }
      byKey.set(keyId, c);
      const set = byMerchant.get(group) ?? new Set();
      byMerchant.set(group, set.add(c));
      c.push(CONNECTED, true);
      heartbeat ??= deps.clock.every(heartbeatMs, beat);
      return c.stream;
    },
    stats() {
      let bufferedBytes = 0;
      for (const c of byKey.values()) bufferedBytes += c.bufferedBytes;
      return { connections: byKey.size, dropped, bufferedBytes, replaced };
    },
    endWhere(keep) {
      for (const c of [...byKey.values()]) if (!keep(c.keyId)) c.end();
    },
    close() {
      if (closed) return;
      closed = true;
      unsubscribe();
      // The last stream that goes stops the heartbeat.
      for (const c of [...byKey.values()]) c.end();
    },
  };
}
