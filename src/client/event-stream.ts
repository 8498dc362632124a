import type { SseEvent } from '../schemas/events.js';

/** Minimal structural logger (matches `Logger` in src/client/logger.ts). */
export interface EventStreamLogger {
  debug?(msg: string, meta?: Record<string, unknown>): void;
  info?(msg: string, meta?: Record<string, unknown>): void;
  warn?(msg: string, meta?: Record<string, unknown>): void;
  error?(msg: string, meta?: Record<string, unknown>): void;
}

/** How the stream reaches `GET /api/v1/public/events`; built by the client. */
export interface EventStreamTransport {
  /** Absolute URL of `GET /api/v1/public/events`. */
  url: string;
  fetch: typeof fetch;
  /** Fresh per connection attempt: Authorization, and X-PSP-Signature of the empty body when signing. */
  headers(): Record<string, string>;
  logger?: EventStreamLogger;
}

/** Options of {@link streamEvents}. */
export interface StreamEventsOptions {
  signal?: AbortSignal;
  onReconnect?: (info: { attempt: number; reason: string }) => void;
}

/**
 * Opens the realtime event stream (work in progress: full reconnection follows).
 *
 * @example
 * for await (const ev of streamEvents(transport)) console.log(ev.kind);
 */
export function streamEvents(
  transport: EventStreamTransport,
  options: StreamEventsOptions = {},
): AsyncIterable<SseEvent> & { close(): void } {
  const controller = new AbortController();
  options.signal?.addEventListener('abort', () => controller.abort(), { once: true });
  async function* run(): AsyncGenerator<SseEvent> {
    const res = await transport.fetch(transport.url, {
      headers: { accept: 'text/event-stream', ...transport.headers() },
      signal: controller.signal,
    });
    if (!res.body) return;
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buf += value;
        let idx = buf.indexOf('\n\n');
        while (idx >= 0) {
          const block = buf.slice(0, idx);
          buf = buf.slice(idx + 2);
          const data = block
            .split('\n')
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).trimStart())
            .join('\n');
          if (data) {
            try {
              yield JSON.parse(data) as SseEvent;
            } catch {
              transport.logger?.warn?.('psp-sdk: skipped a malformed event');
            }
          }
          idx = buf.indexOf('\n\n');
        }
      }
    } catch (err) {
      if (controller.signal.aborted) return;
      throw err;
    } finally {
      controller.abort();
    }
  }
  return {
    [Symbol.asyncIterator]: () => run(),
    close: () => controller.abort(),
  };
}
