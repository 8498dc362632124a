import { afterEach, describe, expect, it } from 'vitest';
import {
  connectableUrl,
  type FetchHandler,
  listenNode,
  type NodeServer,
  normalizeRemoteAddress,
} from '../../../src/reference/adapters/node-http.js';
import { handSse } from './sse-source.js';

const servers: NodeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(handler: FetchHandler, options: { overrideGlobalObjects?: boolean } = {}) {
  const server = await listenNode(handler, { host: '127.0.0.1', port: 0, ...options });
  servers.push(server);
  return server;
}

describe('node:http adapter', () => {
  it('binds 127.0.0.1 on a free port and reports a connectable URL', async () => {
    const server = await serve(() => new Response('ok'));
    expect(server.host).toBe('127.0.0.1');
    expect(server.port).toBeGreaterThan(0);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    const res = await fetch(`${server.url}/x`);
    expect(await res.text()).toBe('ok');
  });

  it('hands the handler the method, URL, headers, body and the socket address', async () => {
    let seen:
      | { method: string; url: string; header: string | null; body: string; read?: string; address?: string }
      | undefined;
    const server = await serve(async (req, info) => {
      // The adapter reads the body only when asked (after section 5); `request.body` then gives the same bytes.
      const read = new TextDecoder().decode(await info.readBody?.(1024));
      seen = {
        method: req.method,
        url: req.url,
        header: req.headers.get('x-test'),
        body: await req.text(),
        read,
        address: info.remoteAddress,
      };
      return Response.json({ ok: true }, { status: 201, headers: { 'x-answer': '42' } });
    });
    const res = await fetch(`${server.url}/api/v1/public/payments?a=1`, {
      method: 'POST',
      headers: { 'x-test': 'yes', 'content-type': 'application/json' },
      body: '{"amount":100}',
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-answer')).toBe('42');
    expect(await res.json()).toEqual({ ok: true });
    expect(seen).toEqual({
      method: 'POST',
      url: `${server.url}/api/v1/public/payments?a=1`,
      header: 'yes',
      body: '{"amount":100}',
      read: '{"amount":100}',
      address: '127.0.0.1',
    });
  });

  it('gives GET and HEAD requests a null body, as the Fetch standard does, and still reads as empty', async () => {
    const seen: Array<[string, unknown, string]> = [];
    const server = await serve(async (req) => {
      seen.push([req.method, req.body, await req.text()]);
      return new Response('ok');
    });
    await fetch(`${server.url}/a`);
    await fetch(`${server.url}/b`, { method: 'HEAD' });
    expect(seen).toEqual([
      ['GET', null, ''],
      ['HEAD', null, ''],
    ]);
  });

  it('streams SSE: the first comment arrives before the stream ends, and a disconnect cancels the stream', async () => {
    let cancelled: unknown = 'not yet';
    let aborted = false;
    let markCancelled: () => void = () => {};
    const cancelledPromise = new Promise<void>((r) => {
      markCancelled = r;
    });
    const encoder = new TextEncoder();
    const server = await serve((req) => {
      req.signal.addEventListener('abort', () => {
        aborted = true;
      });
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(encoder.encode(': connected\n\n'));
          // Never closes on its own, like the event stream.
        },
        cancel(reason) {
          cancelled = reason;
          markCancelled();
        },
      });
      return new Response(stream, {
        headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
      });
    });
    const controller = new AbortController();
    const res = await fetch(`${server.url}/api/v1/public/events`, { signal: controller.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toBe(': connected\n\n');
    controller.abort();
    await cancelledPromise;
    expect(cancelled).not.toBe('not yet');
    expect(aborted).toBe(true);
  });

  it('flushes every SSE chunk as it is enqueued', async () => {
    const sse = handSse();
    const server = await serve(sse.handler, { overrideGlobalObjects: false });
    const client = await sse.open(`${server.url}/events`);
    expect(client.first).toBe(': connected\n\n');
    sse.push('event: payment.created\ndata: {"kind":"payment.created"}\n\n');
    expect(await client.read()).toBe('event: payment.created\ndata: {"kind":"payment.created"}\n\n');
    sse.push(': ping\n\n');
    expect(await client.read()).toBe(': ping\n\n');
    client.abort();
  });

  it('close() ends open streams and keep-alive sockets promptly', async () => {
    const server = await serve(
      () =>
        new Response(
          new ReadableStream({
            start(c) {
              c.enqueue(new TextEncoder().encode(': connected\n\n'));
            },
          }),
          { headers: { 'content-type': 'text/event-stream' } },
        ),
    );
    const res = await fetch(`${server.url}/events`);
    const reader = res.body!.getReader();
    await reader.read();
    // A stream left open would hold close() past the test's timeout: this one never ends by itself.
    await server.close();
    await expect(reader.read()).rejects.toThrow();
    await server.close(); // twice is fine
  });

  it('answers 500 with the error body when the handler throws, without leaking the error', async () => {
    const server = await serve(() => {
      throw new Error('sk_test_abcdef_secret leaked?');
    });
    const res = await fetch(`${server.url}/boom`);
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({
      error: { code: 'internal_error', message: 'The reference failed to answer this request.' },
    });
    expect(text).not.toContain('sk_test');
  });

  it('rejects with a clear message when the port is taken', async () => {
    const first = await serve(() => new Response('x'));
    await expect(listenNode(() => new Response('y'), { port: first.port })).rejects.toThrow(
      `Cannot start the reference server: port ${first.port} is already in use on 127.0.0.1`,
    );
  });

  it('builds a URL from its own address when the client sends no Host header (HTTP/1.0)', async () => {
    let url = '';
    const server = await serve((req) => {
      url = req.url;
      return new Response('ok');
    });
    const { connect } = await import('node:net');
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1', () => socket.write('GET /hello HTTP/1.0\r\n\r\n'));
      let text = '';
      socket.on('data', (d) => {
        text += d;
      });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.[01] 200/);
    expect(url).toBe(`http://127.0.0.1:${server.port}/hello`);
  });
});

describe('address helpers', () => {
  it('turns IPv4-mapped IPv6 into plain IPv4 and leaves the rest alone', () => {
    expect(normalizeRemoteAddress('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(normalizeRemoteAddress('::FFFF:10.1.2.3')).toBe('10.1.2.3');
    expect(normalizeRemoteAddress('::1')).toBe('::1');
    expect(normalizeRemoteAddress('::ffff:abcd')).toBe('::ffff:abcd');
    expect(normalizeRemoteAddress('192.168.0.1')).toBe('192.168.0.1');
    expect(normalizeRemoteAddress(undefined)).toBeUndefined();
  });

  it('makes wildcard binds connectable', () => {
    expect(connectableUrl('0.0.0.0', 1)).toBe('http://127.0.0.1:1');
    expect(connectableUrl('::', 2)).toBe('http://[::1]:2');
    expect(connectableUrl('::1', 3)).toBe('http://[::1]:3');
    expect(connectableUrl('10.0.0.5', 4)).toBe('http://10.0.0.5:4');
  });
});

describe('what the HTTP parser refuses', () => {
  async function raw(port: number, payload: string): Promise<string> {
    const { connect } = await import('node:net');
    return new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(payload));
      let text = '';
      socket.setEncoding('utf8').on('data', (d: string) => {
        text += d;
      });
      socket.on('close', () => resolve(text));
      socket.on('error', (e: NodeJS.ErrnoException) => (e.code === 'ECONNRESET' ? resolve(text) : reject(e)));
    });
  }

  /** The JSON body of a raw answer. */
  const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

  it('answers oversized headers with 431 and the error body', async () => {
    let called = false;
    const server = await serve(() => {
      called = true;
      return new Response('no');
    });
    const answer = await raw(
      server.port,
      `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(answer).toContain('content-type: application/json');
    expect(bodyOf(answer)).toEqual({
      error: { code: 'headers_too_large', message: 'The request headers are too large.' },
    });
    expect(called).toBe(false);
  });

  it('answers a Host header that makes no URL with 400 and the error body', async () => {
    const server = await serve(() => new Response('no'));
    const answer = await raw(server.port, 'GET /x HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(answer)).toEqual({
      error: { code: 'bad_request', message: 'The request target or Host header is malformed.' },
    });
  });

  it('answers an HTTP/1.1 request without Host with 400 and the error body, before the handler', async () => {
    let called = false;
    const server = await serve(() => {
      called = true;
      return new Response('no');
    });
    const answer = await raw(server.port, 'GET /x HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('content-type: application/json');
    expect(bodyOf(answer)).toEqual({
      error: { code: 'bad_request', message: 'An HTTP/1.1 request must carry a Host header.' },
    });
    expect(called).toBe(false);
  });

  it('answers a malformed request line with 400 and the error body', async () => {
    const server = await serve(() => new Response('no'));
    const answer = await raw(server.port, 'THIS IS NOT HTTP\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(answer).error.code).toBe('bad_request');
  });
});
