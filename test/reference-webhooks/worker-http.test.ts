import { createRequire } from 'node:module';
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { lightHttpClient, type PostOutcome } from '../../src/reference/adapters/delivery-worker-http.js';

const load = createRequire(import.meta.url);
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

/**
 * A TCP server that calls `answer` once per complete request (head + content-length body) and counts connections.
 */
async function server(answer: (socket: Socket, n: number) => void) {
  const state = { connections: 0, requests: 0, heads: [] as string[] };
  const sockets = new Set<Socket>();
  const srv = createServer((socket) => {
    state.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let buf = '';
    socket.on('data', (chunk) => {
      buf += chunk.toString('latin1');
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/\r\ncontent-length: (\d+)/i.exec(buf.slice(0, end))?.[1] ?? 0);
        if (buf.length < end + 4 + length) return;
        state.heads.push(buf.slice(0, end));
        buf = buf.slice(end + 4 + length);
        answer(socket, ++state.requests);
      }
    });
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        srv.close(() => resolve());
      }),
  );
  return { state, port: (srv.address() as AddressInfo).port };
}

function client(maxSockets = 4, maxDrainBytes = 64 * 1024) {
  return lightHttpClient(load, maxSockets, maxDrainBytes);
}

const body = new TextEncoder().encode('{"id":"evt_1"}');
const headers = () => ({ 'content-type': 'application/json', 'content-length': String(body.byteLength) });

function post(c: ReturnType<typeof client>, port: number, path = '/hooks'): Promise<PostOutcome> {
  return new Promise((resolve) => c.post({ hostname: '127.0.0.1', port, path }, headers(), body, resolve));
}

/** Writes `text` a few bytes per event-loop turn, so the answer's framing arrives split at awkward places. */
function dribble(socket: Socket, text: string, step = 3): void {
  let at = 0;
  const next = () => {
    if (at >= text.length || socket.destroyed) return;
    socket.write(text.slice(at, at + step));
    at += step;
    setImmediate(next);
  };
  next();
}

describe('the delivery worker HTTP client', () => {
  test('writes the request head node:http writes and reuses the connection after a content-length answer', async () => {
    const { state, port } = await server((s) => s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'));
    const c = client();
    for (let i = 0; i < 3; i++) expect(await post(c, port, '/hooks?a=1')).toEqual({ status: 200 });
    expect(state.connections).toBe(1);
    expect(state.heads[0]).toBe(
      `POST /hooks?a=1 HTTP/1.1\r\ncontent-type: application/json\r\ncontent-length: ${body.byteLength}\r\nHost: 127.0.0.1:${port}\r\nConnection: keep-alive`,
    );
  });

  test('reads a chunked answer split across packets, extensions and trailers included, then reuses', async () => {
    const { state, port } = await server((s) =>
      dribble(
        s,
        'HTTP/1.1 202 Accepted\r\nTransfer-Encoding: chunked\r\n\r\n5;x=1\r\nhello\r\n0\r\nX-T: 1\r\n\r\n',
      ),
    );
    const c = client();
    expect(await post(c, port)).toEqual({ status: 202 });
    expect(await post(c, port)).toEqual({ status: 202 });
    expect(state.connections).toBe(1);
  });

  test('skips 100 Continue and reports the final status', async () => {
    const { port } = await server((s) =>
      s.write('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n'),
    );
    expect(await post(client(), port)).toEqual({ status: 204 });
  });

  test('Connection: close, HTTP/1.0 and extra bytes after an answer each end the connection', async () => {
    const answers = [
      'HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n',
      'HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxEXTRA',
      'HTTP/1.0 500 Oops\r\nContent-Length: 0\r\n\r\n',
    ];
    const { state, port } = await server((s, n) => s.write(answers[n - 1]!));
    const c = client();
    expect(await post(c, port)).toEqual({ status: 200 });
    expect(await post(c, port)).toEqual({ status: 200 });
    expect(await post(c, port)).toEqual({ status: 500 });
    expect(state.connections).toBe(3);
  });

  test('an answer without framing is read until the receiver closes', async () => {
    const { port } = await server((s) => {
      s.write('HTTP/1.1 503 Busy\r\n\r\nsome text');
      setImmediate(() => s.end('more'));
    });
    expect(await post(client(), port)).toEqual({ status: 503 });
  });

  test('a body beyond the drain limit is not read to its end: the status counts, the connection goes', async () => {
    const { state, port } = await server((s, n) => {
      if (n === 1) s.write(`HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n${'a'.repeat(2_000)}`);
      else s.write('HTTP/1.1 204 No Content\r\n\r\n');
    });
    const c = client(4, 1_000);
    expect(await post(c, port)).toEqual({ status: 200 });
    expect(await post(c, port)).toEqual({ status: 204 });
    expect(state.connections).toBe(2);
  });

  test.each([
    ['garbage instead of HTTP', 'this is not http\r\n\r\n', 'HPE_INVALID_CONSTANT'],
    [
      'two different content-lengths',
      'HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nx',
      'HPE_INVALID_CONTENT_LENGTH',
    ],
    ['a header line without a colon', 'HTTP/1.1 200 OK\r\nbroken\r\n\r\n', 'HPE_INVALID_HEADER_TOKEN'],
    ['a head larger than 16 KB', `HTTP/1.1 200 OK\r\nX: ${'a'.repeat(20_000)}`, 'HPE_HEADER_OVERFLOW'],
  ])('%s fails the request with a parse error code', async (_name, answer, code) => {
    const { port } = await server((s) => s.write(answer));
    const outcome = await post(client(), port);
    expect(outcome).toEqual({ error: expect.objectContaining({ code }) });
  });

  test('a bad chunk size after the status still reports the status, and drops the connection', async () => {
    const { state, port } = await server((s, n) =>
      s.write(
        n === 1
          ? 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'
          : 'HTTP/1.1 204 No Content\r\n\r\n',
      ),
    );
    const c = client();
    expect(await post(c, port)).toEqual({ status: 200 });
    expect(await post(c, port)).toEqual({ status: 204 });
    expect(state.connections).toBe(2);
  });

  test('a reset before the status line and a refused connection are errors with their codes', async () => {
    const { port } = await server((s) => s.destroy());
    expect(await post(client(), port)).toEqual({ error: expect.objectContaining({ code: 'ECONNRESET' }) });
    const gone = await server(() => {});
    await closers.pop()!();
    expect(await post(client(), gone.port)).toEqual({
      error: expect.objectContaining({ code: 'ECONNREFUSED' }),
    });
  });

  test('at most maxSockets connections per receiver; the rest wait and go in order', async () => {
    const { state, port } = await server((s, n) =>
      s.write(`HTTP/1.1 ${200 + n} X\r\nContent-Length: 0\r\n\r\n`),
    );
    const c = client(1);
    const outcomes = await Promise.all([post(c, port), post(c, port), post(c, port)]);
    expect(outcomes).toEqual([{ status: 201 }, { status: 202 }, { status: 203 }]);
    expect(state.connections).toBe(1);
  });

  test('cancelling drops the connection, never calls back, and lets a waiting request through', async () => {
    let sockets = 0;
    const { state, port } = await server((s, n) => {
      sockets++;
      if (n > 1) s.write('HTTP/1.1 204 No Content\r\n\r\n'); // the first request hangs
    });
    const c = client(1);
    const calls: PostOutcome[] = [];
    const cancel = c.post({ hostname: '127.0.0.1', port, path: '/' }, headers(), body, (o) => calls.push(o));
    const waiting = post(c, port);
    while (state.requests < 1) await new Promise((r) => setImmediate(r));
    cancel();
    expect(await waiting).toEqual({ status: 204 });
    expect(calls).toEqual([]);
    expect(state.connections).toBe(2);
    expect(sockets).toBe(2);
  });
});
