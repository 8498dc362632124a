import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSigner, webSigner } from '../../src/client/sign.js';
import { hmacSha256Hex } from '../../src/webhooks/hmac.js';
import { client, json, PAYMENT_ID, payment, SIGNING_SECRET, stubFetch } from './helpers.js';

afterEach(() => vi.restoreAllMocks());

const bodies = ['', '{"amount":1}', '{"d":"Кофе ☕ \\u0000"}', 'x'.repeat(10_000)];

describe('signers', () => {
  it('node and WebCrypto signers equal node:crypto and the webhooks module', async () => {
    const node = createSigner(SIGNING_SECRET);
    const web = webSigner(SIGNING_SECRET);
    for (const b of bodies) {
      const want = createHmac('sha256', SIGNING_SECRET).update(b).digest('hex');
      expect(node(b)).toBe(want);
      expect(await web(b)).toBe(want);
      expect(hmacSha256Hex(SIGNING_SECRET, b)).toBe(want);
    }
  });

  it('without node:crypto the client signs with WebCrypto, requests and event stream alike', async () => {
    vi.spyOn(process, 'getBuiltinModule').mockReturnValue(undefined as never);
    expect(createSigner('thm_x')('')).toBeInstanceOf(Promise);
    const sse =
      'event: payment.created\ndata: {"kind":"payment.created","payload":{"id":"p","status":"pending","amount":1},"at":"2026-05-06T10:00:00.000Z"}\n\n';
    const { fetch, seen } = stubFetch((req) =>
      req.url.endsWith('/events')
        ? new Response(sse, { headers: { 'content-type': 'text/event-stream' } })
        : json(payment()),
    );
    const c = client(fetch, { signingSecret: SIGNING_SECRET });
    const stream = c.events.stream();
    for await (const _ of stream) break;
    stream.close();
    await c.payments.get(PAYMENT_ID);
    const empty = `sha256=${createHmac('sha256', SIGNING_SECRET).update('').digest('hex')}`;
    expect(seen.map((s) => s.headers['x-psp-signature'])).toEqual([empty, empty]);
  });
});
