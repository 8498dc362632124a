// Issue 23 #3: createWebhookHandler read any body whole before looking at it (an unsigned 256 MiB POST cost
// +512 MiB). It now refuses a missing or malformed signature header without reading the body, and reads at most
// maxBodyBytes, cancelling the rest of the stream.
import { describe, expect, it } from 'vitest';
import { createWebhookHandler, signWebhook } from '../../src/webhooks/index.js';
import { envelope, SECRET } from './helpers.js';

/** A body that never ends, counting what was pulled from it and whether it was cancelled. */
function endless(chunk = 64 * 1024) {
  const seen = { pulled: 0, cancelled: false };
  // highWaterMark 0: nothing is pulled before someone reads.
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        seen.pulled += chunk;
        controller.enqueue(new Uint8Array(chunk));
      },
      cancel() {
        seen.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, seen };
}

const post = (body: ReadableStream<Uint8Array>, headers: Record<string, string>) =>
  new Request('http://127.0.0.1/webhooks', { method: 'POST', body, headers, duplex: 'half' } as RequestInit);

const signedHeaders = () => signWebhook(envelope(), SECRET).headers;

describe('createWebhookHandler reads a bounded body, after the headers', () => {
  it('answers 400 to a missing or malformed signature header without pulling the body at all', async () => {
    const handle = createWebhookHandler({ secret: SECRET });
    for (const [headers, reason] of [
      [{ 'content-type': 'application/json' }, 'missing_signature'],
      [{ 'x-psp-signature': 'nonsense' }, 'malformed_signature'],
      [{ 'x-psp-signature': `t=1,v1=${'a'.repeat(64)}` }, 'missing_v2_signature'],
    ] as const) {
      const { stream, seen } = endless();
      const res = await handle(post(stream, headers));
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: reason });
      expect(seen.pulled).toBe(0);
    }
  });

  it('answers 413 past maxBodyBytes, having read no more than the limit and one chunk, and cancels the stream', async () => {
    const handle = createWebhookHandler({ secret: SECRET, maxBodyBytes: 256 * 1024 });
    const { stream, seen } = endless();
    const res = await handle(post(stream, signedHeaders()));
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: 'payload_too_large' });
    expect(seen.cancelled).toBe(true);
    expect(seen.pulled).toBeLessThanOrEqual(256 * 1024 + 64 * 1024);
  });

  it('answers 413 to a declared Content-Length past the limit without reading, with 1 MiB by default', async () => {
    const handle = createWebhookHandler({ secret: SECRET });
    const { stream, seen } = endless();
    const res = await handle(post(stream, { ...signedHeaders(), 'content-length': String(2 ** 20 + 1) }));
    expect(res.status).toBe(413);
    expect(seen.pulled).toBe(0);
    // A real event under the default limit still goes through, in several chunks.
    const { body, headers } = signWebhook(envelope(), SECRET);
    const bytes = new TextEncoder().encode(body);
    const chunked = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < bytes.length; i += 7) c.enqueue(bytes.slice(i, i + 7));
        c.close();
      },
    });
    expect((await handle(post(chunked, headers))).status).toBe(200);
  });

  it('refuses a maxBodyBytes that is not a positive integer', () => {
    expect(() => createWebhookHandler({ secret: SECRET, maxBodyBytes: 0 })).toThrow(TypeError);
  });
});
