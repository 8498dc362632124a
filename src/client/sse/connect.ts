// The event stream's connect step: one attempt to open `events.stream` through the client's send step (which
// sets every header). What to do after a failure is the reconnect step's (reconnect.ts).
import { PUBLIC_PREFIX, pathOf } from '../../schemas/operations.js';
import { apiErrorOf, parseRetryAfter } from '../errors.js';
import { release } from '../release.js';
import type { SendStep } from '../send.js';
import { worthRetrying } from '../wait.js';

const TEMPLATE = `${PUBLIC_PREFIX}${pathOf('events.stream')}`;

/**
 * How a connection attempt ended: an open event stream (`body`), or an answer worth another attempt later
 * (`failed`: `http_<status>` with its readable `Retry-After` in ms, or `unexpected_content_type` for a 200 that
 * is not an event stream).
 */
export type Opened =
  | { readonly body: ReadableStream<Uint8Array> }
  | {
      readonly failed: `http_${number}` | 'unexpected_content_type';
      readonly retryAfterMs?: number | undefined;
    };

/**
 * Opens the stream at `url` (the `events.stream` operation's absolute URL) through `send`, as attempt
 * `attempt`. An answer that is not worth retrying (401, 403, 501, any other 4xx) rejects with its typed
 * `PspApiError`; no answer rejects with the fetch's error. `signal` ends the connection, the open stream
 * included. Any body it does not return is released.
 *
 * @example
 * const opened = await connect(send, transport.url(pathOf('events.stream')), conn.signal, 1);
 * if ('body' in opened) read(opened.body);
 */
export async function connect(
  send: SendStep,
  url: string,
  signal: AbortSignal,
  attempt: number,
): Promise<Opened> {
  // The connection stays ours to end: the send step keeps this signal on whatever the middleware passes.
  const request = new Request(url, { signal, redirect: 'manual' });
  const res = await send(request, { operation: 'events.stream', attempt, urlTemplate: TEMPLATE });
  if (!res.ok && !worthRetrying(res.status)) throw await apiErrorOf(res, { attempts: attempt });
  if (res.ok && res.body && /^text\/event-stream/i.test(res.headers.get('content-type') ?? ''))
    return { body: res.body };
  // A retryable error answer, or not a stream: the body is not needed, release the connection.
  await release(res.body);
  return res.ok
    ? { failed: 'unexpected_content_type' }
    : { failed: `http_${res.status}`, retryAfterMs: parseRetryAfter(res.headers.get('retry-after')) };
}
