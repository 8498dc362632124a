import type { EventSourceParser } from 'eventsource-parser';

/** Feeds an SSE body to `parser`, chunk by chunk, until it ends or breaks (an aborted or closed stream). */
export async function feed(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  parser: EventSourceParser,
): Promise<void> {
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      parser.feed(decoder.decode(value, { stream: true }));
    }
  } catch {
    // Aborted by the test, or the server went away: what came is in the parser.
  }
}
