// The event stream's parse step: bytes of one connection in, envelopes out. No I/O and no timers: the
// connection (connect.ts) and the reconnection (reconnect.ts) are other steps.
import { createParser } from 'eventsource-parser';
import type { SseEvent } from '../../schemas/events.js';
import { type Logger, log } from '../logger.js';
import { parseEnvelope } from './envelope.js';

/** The longest single message kept, in characters: a longer one ends the connection (`stream_too_large`). */
export const MAX_MESSAGE = 1 << 20;

/** What one connection's bytes said so far, besides its events. */
export interface EventParser {
  /** Parses the next chunk (split anywhere, inside a character too) and returns the envelopes it completed. */
  feed(chunk: Uint8Array): SseEvent[];
  /** The server sent `: replaced`: another connection with the same key took over. */
  readonly replaced: boolean;
  /** A message outgrew {@link MAX_MESSAGE}. */
  readonly overflow: boolean;
  /** The server's last `retry:` field, in ms, never below 1000 (`retry: 0` would reconnect in a tight loop). */
  readonly retryMs: number | undefined;
}

/**
 * A parser for the bytes of one connection (a new connection needs a new one). A message that is not an
 * envelope is logged as a warning (its event name and size, never its data) and skipped.
 *
 * @example
 * const parser = eventParser(logger);
 * for (const ev of parser.feed(chunk)) console.log(ev.kind);
 */
export function eventParser(logger?: Logger | undefined): EventParser {
  let out: SseEvent[];
  const decoder = new TextDecoder();
  const state = {
    replaced: false,
    overflow: false,
    retryMs: undefined as number | undefined,
    feed(chunk: Uint8Array): SseEvent[] {
      out = [];
      parser.feed(decoder.decode(chunk, { stream: true }));
      return out;
    },
  };
  const parser = createParser({
    maxBufferSize: MAX_MESSAGE,
    onEvent: (msg) => {
      const ev = parseEnvelope(msg.event, msg.data);
      if (ev) out.push(ev);
      else
        log(logger, 'warn', 'psp-sdk: skipped a malformed event', {
          event: msg.event,
          bytes: msg.data.length,
        });
    },
    onComment: (comment) => {
      if (comment.trim() === 'replaced') state.replaced = true;
    },
    onRetry: (ms) => {
      state.retryMs = Math.max(ms, 1000);
    },
    onError: (err) => {
      if (err.type === 'max-buffer-size-exceeded') state.overflow = true;
    },
  });
  return state;
}
