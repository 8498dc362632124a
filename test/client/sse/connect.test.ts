import { describe, expect, it } from 'vitest';
import { AuthenticationError, InternalServerError, PspApiError } from '../../../src/client/errors.js';
import { createSendStep } from '../../../src/client/send.js';
import { connect } from '../../../src/client/sse/connect.js';
import { serversClosedAfterEach, sseHead } from '../../support/sse-server.js';

// The connect step alone, against a real server: one attempt, what it sent, and how it read the answer.

const server = serversClosedAfterEach();

const sendTo = (url: string) =>
  createSendStep({
    fetch: globalThis.fetch,
    headers: () => ({ authorization: 'Bearer sk_test_abcdef_secret' }),
    baseUrl: new URL(url).origin,
    userAgent: 'psp-sdk/test',
  });

describe('connect', () => {
  it('returns the open stream, sent with the headers of the send step', async () => {
    const s = await server((_req, res) => {
      sseHead(res);
      res.end(': connected\n\n');
    });
    const conn = new AbortController();
    const opened = await connect(sendTo(s.url), s.url, conn.signal, 1);
    if (!('body' in opened)) throw new Error('expected a stream');
    expect(await new Response(opened.body).text()).toBe(': connected\n\n');
    const h = s.requests[0]!.headers;
    expect([h.accept, h['cache-control'], h['user-agent'], h.authorization]).toEqual([
      'text/event-stream',
      'no-cache',
      'psp-sdk/test',
      'Bearer sk_test_abcdef_secret',
    ]);
  });

  it('reads an answer worth another attempt, with its Retry-After, and releases its body', async () => {
    const s = await server((_req, res, n) => {
      if (n === 1) {
        res.writeHead(503, { 'retry-after': '3' });
        return void res.end('busy');
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>login</html>');
    });
    const send = sendTo(s.url);
    const signal = new AbortController().signal;
    expect(await connect(send, s.url, signal, 1)).toEqual({ failed: 'http_503', retryAfterMs: 3000 });
    expect(await connect(send, s.url, signal, 2)).toEqual({ failed: 'unexpected_content_type' });
    await s.drained();
  });

  it.each([
    [401, AuthenticationError],
    [501, InternalServerError],
    [404, PspApiError],
  ])('rejects a final %i with its typed error', async (status, Cls) => {
    const s = await server((_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'nope', message: 'no' } }));
    });
    const err = await connect(sendTo(s.url), s.url, new AbortController().signal, 4).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Cls);
    expect((err as PspApiError).status).toBe(status);
    expect((err as PspApiError).attempts).toBe(4);
  });

  it('rejects when no answer comes, and its signal ends the attempt', async () => {
    const s = await server(() => {
      // Never answers.
    });
    const conn = new AbortController();
    const pending = connect(sendTo(s.url), s.url, conn.signal, 1);
    await s.connected(1);
    conn.abort('done');
    await expect(pending).rejects.toBeDefined();
    await s.close();
    await expect(connect(sendTo(s.url), s.url, new AbortController().signal, 1)).rejects.toThrow();
  });
});
