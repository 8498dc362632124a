import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSigner } from '../../src/client/sign.js';
import { hmacSha256Hex } from '../../src/internal/hmac.js';
import { API_KEY, BASE_URL, json, PAYMENT_ID, payment, SIGNING_SECRET, stubFetch } from './helpers.js';

afterEach(() => {
  vi.restoreAllMocks();
  vi.resetModules();
});

const bodies = ['', '{"amount":1}', '{"d":"Кофе ☕ \\u0000"}', 'x'.repeat(10_000)];

describe('signers', () => {
  it('the client signer equals node:crypto and the webhooks module, with either HMAC backend', () => {
    const sign = createSigner(SIGNING_SECRET);
    for (const b of bodies) {
      const want = createHmac('sha256', SIGNING_SECRET).update(b).digest('hex');
      expect(sign(b)).toBe(want);
      expect(hmacSha256Hex(SIGNING_SECRET, b)).toBe(want);
      expect(hmacSha256Hex(SIGNING_SECRET, b, 'noble')).toBe(want);
    }
  });

  it('without node:crypto the client signs synchronously with @noble/hashes, requests and event stream alike', async () => {
    vi.resetModules();
    vi.spyOn(process, 'getBuiltinModule').mockReturnValue(undefined as never);
    const { hmacBackend } = await import('../../src/internal/hmac.js');
    const { createSigner: fresh } = await import('../../src/client/sign.js');
    const { PspClient } = await import('../../src/index.js');
    expect(hmacBackend()).toBe('noble');
    expect(fresh('thm_x')('')).toBe(createHmac('sha256', 'thm_x').update('').digest('hex'));
    const sse =
      'event: payment.created\ndata: {"kind":"payment.created","payload":{"id":"p","status":"pending","amount":1},"at":"2026-05-06T10:00:00.000Z"}\n\n';
    const { fetch, seen } = stubFetch((req) =>
      req.url.endsWith('/events')
        ? new Response(sse, { headers: { 'content-type': 'text/event-stream' } })
        : json(payment()),
    );
    const c = new PspClient({ apiKey: API_KEY, baseUrl: BASE_URL, fetch, signingSecret: SIGNING_SECRET });
    const stream = c.events.stream();
    for await (const _ of stream) break;
    stream.close();
    await c.payments.get(PAYMENT_ID);
    const empty = `sha256=${createHmac('sha256', SIGNING_SECRET).update('').digest('hex')}`;
    expect(seen.map((s) => s.headers['x-psp-signature'])).toEqual([empty, empty]);
  });
});
