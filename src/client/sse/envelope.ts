import type { SseEvent } from '../../schemas/events.js';

/**
 * Reads one SSE message into an envelope (spec 2.11), or undefined when it is not one. Light checks, not a schema:
 * the stream is best-effort and its payloads may grow, so unknown kinds and extra fields pass through.
 * The `kind` inside the JSON wins; the `event:` line fills in when the JSON has none.
 *
 * @example
 * parseEnvelope('payment.created', '{"kind":"payment.created","payload":{"id":"p"},"at":"..."}');
 */
export function parseEnvelope(eventName: string | undefined, data: string): SseEvent | undefined {
  let v: unknown;
  try {
    v = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const e = v as Record<string, unknown>;
  const kind = typeof e.kind === 'string' ? e.kind : eventName;
  const payload = e.payload;
  if (!kind || typeof payload !== 'object' || payload === null || Array.isArray(payload)) return undefined;
  if (e.at !== undefined && typeof e.at !== 'string') return undefined;
  return { ...e, kind, payload } as SseEvent;
}
