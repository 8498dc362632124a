// A raw reader of the event stream (spec 4.8), line by line, so that the framing itself can be checked: the
// SDK's parser would forgive what the spec does not allow.
import { TIMED_OUT, withDeadline } from '../internal/deadline.js';
import { requestHeaders } from '../internal/wire.js';
import { MAX_MESSAGE } from '../client/sse/parse.js';
import { CheckFailure } from './outcomes.js';
import { PUBLIC_PREFIX, pathOf } from '../schemas/operations.js';
import type { Kit } from './kit.js';

/** One message of the stream: its lines as sent, up to the empty line. */
export interface Frame {
  lines: string[];
}

/** An open stream. */
export interface RawStream {
  status: number;
  contentType: string;
  /** The next line, or `undefined` when the stream ended or `ms` passed. */
  line(ms: number): Promise<string | undefined>;
  /** The next frame whose lines `match` accepts (comments are frames of their own), within `ms`. */
  frame(match: (frame: Frame) => boolean, ms: number): Promise<Frame | undefined>;
  close(): Promise<void>;
}

/** Opens events.stream with `key` (default: the run's key; signed like any request when there is a secret). */
export async function openStream(kit: Kit, key = kit.apiKey, secret = kit.signingSecret): Promise<RawStream> {
  const abort = new AbortController();
  const headers = requestHeaders({ token: key, signWith: secret, accept: 'text/event-stream' });
  const res = await kit.fetch(`${kit.baseUrl}${PUBLIC_PREFIX}${pathOf('events.stream')}`, {
    headers,
    signal: abort.signal,
  });
  const reader = res.body?.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let ended = !reader;
  let pending: Promise<{ done: boolean; value?: string | undefined }> | undefined;

  const line = async (ms: number): Promise<string | undefined> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const nl = buffer.indexOf('\n');
      if (nl >= 0) {
        const text = buffer.slice(0, nl).replace(/\r$/, '');
        buffer = buffer.slice(nl + 1);
        return text;
      }
      if (ended || !reader) return undefined;
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      pending ??= reader.read();
      const result = await withDeadline(pending, left).catch(
        () => ({ done: true, value: undefined }) as const,
      );
      if (result === TIMED_OUT) return undefined;
      pending = undefined;
      if (result.done) ended = true;
      else buffer += result.value;
      // A line no message of the spec could fill (the SDK's own bound): a stream that never ends one fails the
      // check, and the kit's memory stays bounded.
      if (buffer.length > MAX_MESSAGE && buffer.indexOf('\n') < 0) {
        ended = true;
        void reader.cancel().catch(() => undefined);
        throw new CheckFailure(`a line of the event stream runs past ${MAX_MESSAGE} characters`);
      }
    }
  };

  return {
    status: res.status,
    contentType: res.headers.get('content-type') ?? '',
    line,
    async frame(match, ms) {
      const deadline = Date.now() + ms;
      let lines: string[] = [];
      for (;;) {
        const next = await line(deadline - Date.now());
        if (next === undefined) return undefined;
        if (next === '') {
          if (lines.length && match({ lines })) return { lines };
          lines = [];
          continue;
        }
        // A comment line is a frame of its own (`: connected`, `: ping`), whether or not an empty line follows.
        if (next.startsWith(':') && !lines.length) {
          if (match({ lines: [next] })) return { lines: [next] };
          continue;
        }
        lines.push(next);
      }
    },
    async close() {
      abort.abort();
      await reader?.cancel().catch(() => undefined);
    },
  };
}

/** The JSON of a frame's `data:` line, or a failure naming the frame. */
export function dataOf(frame: Frame): Record<string, unknown> {
  const data = frame.lines.find((l) => l.startsWith('data:'));
  try {
    return JSON.parse(data?.slice(5).trim() ?? '') as Record<string, unknown>;
  } catch {
    throw new CheckFailure(`a message's data is not JSON: ${JSON.stringify(frame.lines).slice(0, 300)}`);
  }
}

/** A frame of the event `kind` whose payload's id is `id`. */
export const eventFor =
  (kind: string, id: string) =>
  (frame: Frame): boolean =>
    frame.lines.includes(`event: ${kind}`) &&
    frame.lines.some((l) => l.startsWith('data:') && l.includes(id));
