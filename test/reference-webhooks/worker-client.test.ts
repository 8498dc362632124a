import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { type DeliveryWorker, workerTransport } from '../../src/reference/adapters/delivery-worker.js';
import { ManualClock } from '../../src/reference/domain/clock.js';
import { EventBus } from '../../src/reference/domain/events.js';
import { createWebhookService } from '../../src/reference/webhooks/index.js';
import { Abort, type Transport } from '../../src/reference/webhooks/transport.js';
import { SHOP_A, succeeded, T0 } from './helpers.js';

// What the worker's HTTP client (undici) does with the answers receivers really give, seen through the worker
// transport: statuses, the delivery log's error texts, and how many connections the receiver saw.

const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

/** A TCP server that calls `answer` once per complete request (head + content-length body) and counts connections. */
async function server(answer: (socket: Socket, n: number) => void) {
  const state = { connections: 0, requests: 0 };
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
        buf = buf.slice(end + 4 + length);
        answer(socket, ++state.requests);
      }
    });
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      srv.close(() => resolve());
    });
  closers.push(close);
  return { state, close, url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/hooks` };
}

/** A worker transport on real workers that counts the answers they sent back: proof the worker did the sending. */
function transport(maxSockets = 4, extra: { undiciPath?: string } = {}) {
  const answered = { count: 0, workers: 0, exited: [] as number[] };
  const createWorker = (source: string, workerData: unknown): DeliveryWorker => {
    const w = new Worker(source, { eval: true, workerData });
    answered.workers++;
    w.on('message', (batch: unknown) => {
      if (Array.isArray(batch)) answered.count += batch.length;
    });
    w.on('exit', (code) => answered.exited.push(code));
    return w;
  };
  const t = workerTransport({ maxSockets, createWorker, ...extra });
  closers.push(() => t.close());
  return { t, answered };
}

const body = new TextEncoder().encode('{"id":"evt_1"}');
const send = (t: Transport, url: string, abort = new Abort()) =>
  t.send(url, body, { 'content-type': 'application/json' }, abort).then(
    (status) => ({ status }),
    (err: { code?: string; message?: string }) => ({ code: err.code, message: err.message }),
  );

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

describe('the worker transport against real receivers', () => {
  test('a content-length answer leaves the connection for the next delivery', async () => {
    const rx = await server((s) => s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'));
    const { t, answered } = transport();
    for (let i = 0; i < 3; i++) expect(await send(t, `${rx.url}?a=1`)).toEqual({ status: 200 });
    expect(rx.state.connections).toBe(1);
    expect(answered.count).toBe(3);
  });

  test('a chunked answer split across packets, extensions and trailers included, is read whole, then reused', async () => {
    const rx = await server((s) =>
      dribble(
        s,
        'HTTP/1.1 202 Accepted\r\nTransfer-Encoding: chunked\r\n\r\n5;x=1\r\nhello\r\n0\r\nX-T: 1\r\n\r\n',
      ),
    );
    const { t } = transport();
    expect(await send(t, rx.url)).toEqual({ status: 202 });
    expect(await send(t, rx.url)).toEqual({ status: 202 });
    expect(rx.state.connections).toBe(1);
  });

  test('a content-length answer split across packets is read whole, then reused', async () => {
    const rx = await server((s) =>
      dribble(s, 'HTTP/1.1 201 Created\r\nContent-Length: 10\r\n\r\n0123456789'),
    );
    const { t } = transport();
    expect(await send(t, rx.url)).toEqual({ status: 201 });
    expect(await send(t, rx.url)).toEqual({ status: 201 });
    expect(rx.state.connections).toBe(1);
  });

  test('an informational answer (103 Early Hints) is skipped: the final status counts', async () => {
    const rx = await server((s) =>
      s.write('HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n'),
    );
    expect(await send(transport().t, rx.url)).toEqual({ status: 204 });
  });

  test('Connection: close, HTTP/1.0 and extra bytes after an answer each end the connection; the status counts', async () => {
    const answers = [
      'HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n',
      'HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxEXTRA',
      'HTTP/1.0 500 Oops\r\nContent-Length: 0\r\n\r\n',
      'HTTP/1.1 204 No Content\r\n\r\n',
    ];
    const rx = await server((s, n) => {
      s.write(answers[n - 1]!);
      if (n === 1) s.end();
    });
    const { t } = transport();
    expect(await send(t, rx.url)).toEqual({ status: 200 });
    expect(await send(t, rx.url)).toEqual({ status: 200 });
    expect(await send(t, rx.url)).toEqual({ status: 500 });
    expect(await send(t, rx.url)).toEqual({ status: 204 });
    expect(rx.state.connections).toBe(4);
  });

  test('an answer without framing is read until the receiver closes', async () => {
    const rx = await server((s) => {
      s.write('HTTP/1.1 503 Busy\r\n\r\nsome text');
      setImmediate(() => s.end('more'));
    });
    expect(await send(transport().t, rx.url)).toEqual({ status: 503 });
  });

  test('an answer beyond the 64 KiB drain limit is not read to its end: the status counts, the connection goes', async () => {
    const rx = await server((s, n) => {
      // The first answer announces 1 MB and sends 2 KB, then nothing: only dropping the connection ends it.
      if (n === 1) s.write(`HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n${'a'.repeat(2_000)}`);
      else s.write('HTTP/1.1 204 No Content\r\n\r\n');
    });
    const { t } = transport();
    expect(await send(t, rx.url)).toEqual({ status: 200 });
    expect(await send(t, rx.url)).toEqual({ status: 204 });
    expect(rx.state.requests).toBe(2); // each sent once
    expect(rx.state.connections).toBeGreaterThanOrEqual(2); // the first connection was dropped, not reused
  });

  test('a redirect is not followed: one request, and the 3xx is a failure in the log', async () => {
    const target = await server((s) => s.write('HTTP/1.1 204 No Content\r\n\r\n'));
    const rx = await server((s) =>
      s.write(`HTTP/1.1 302 Found\r\nLocation: ${target.url}\r\nContent-Length: 0\r\n\r\n`),
    );
    const bus = new EventBus();
    const { t } = transport();
    const svc = createWebhookService({ bus, clock: new ManualClock(T0), transport: t });
    closers.push(() => svc.close());
    const ep = svc.createEndpoint(SHOP_A, { url: rx.url });
    bus.publish(succeeded());
    await svc.idle();
    expect(svc.deliveries(ep.id)[0]).toMatchObject({
      status_code: 302,
      error: 'redirect not followed (HTTP 302)',
    });
    expect(rx.state.requests).toBe(1);
    expect(target.state.requests).toBe(0);
  });

  test.each([
    [
      'garbage instead of HTTP',
      'this is not http\r\n\r\n',
      'connection failed: bad HTTP answer (Expected HTTP/, RTSP/ or ICE/)',
    ],
    [
      'two different content-lengths',
      'HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nx',
      'connection failed: bad HTTP answer (body length does not match Content-Length)',
    ],
    [
      'a header line without a colon',
      'HTTP/1.1 200 OK\r\nbroken\r\n\r\n',
      'connection failed: bad HTTP answer (Invalid header token)',
    ],
    [
      // Node's client skipped it; undici takes a 100 that was not asked for (no Expect header is sent) as broken.
      'an unsolicited 100 Continue',
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n',
      'connection failed: bad HTTP answer (bad response)',
    ],
    ['a reset before the status line', '', 'connection failed: ECONNRESET'],
  ])('%s is a connection failure in the delivery log, retried', async (_name, answer, error) => {
    const rx = await server((s) => (answer ? s.write(answer) : s.destroy()));
    const bus = new EventBus();
    const { t, answered } = transport();
    const svc = createWebhookService({ bus, clock: new ManualClock(T0), transport: t });
    closers.push(() => svc.close());
    const ep = svc.createEndpoint(SHOP_A, { url: rx.url });
    bus.publish(succeeded());
    await svc.idle();
    const [entry] = svc.deliveries(ep.id);
    expect(entry).toMatchObject({
      attempt: 1,
      status_code: null,
      next_attempt_at: new Date(T0 + 10_000).toISOString(),
    });
    expect(entry!.error).toBe(error);
    expect(answered.count).toBe(1);
  });

  test('a refused connection says ECONNREFUSED in the delivery log', async () => {
    const gone = await server(() => {});
    await gone.close();
    const bus = new EventBus();
    const svc = createWebhookService({ bus, clock: new ManualClock(T0), transport: transport().t });
    closers.push(() => svc.close());
    const ep = svc.createEndpoint(SHOP_A, { url: gone.url });
    bus.publish(succeeded());
    await svc.idle();
    expect(svc.deliveries(ep.id)[0]!.error).toBe('connection failed: ECONNREFUSED');
  });

  test('at most maxSockets connections per receiver; the rest wait and go in order', async () => {
    const rx = await server((s, n) => s.write(`HTTP/1.1 ${200 + n} X\r\nContent-Length: 0\r\n\r\n`));
    const { t } = transport(1);
    const outcomes = await Promise.all([send(t, rx.url), send(t, rx.url), send(t, rx.url)]);
    expect(outcomes).toEqual([{ status: 201 }, { status: 202 }, { status: 203 }]);
    expect(rx.state.connections).toBe(1);
  });

  test('an abandoned request drops its connection and lets a waiting one through', async () => {
    let arrived!: () => void;
    const first = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const rx = await server((s, n) => {
      if (n === 1)
        arrived(); // the first request hangs
      else s.write('HTTP/1.1 204 No Content\r\n\r\n');
    });
    const { t } = transport(1);
    const abort = new Abort();
    const hanging = send(t, rx.url, abort);
    const waiting = send(t, rx.url);
    await first;
    abort.abort(new Error('deadline'));
    expect(await hanging).toEqual({ code: undefined, message: 'deadline' });
    expect(await waiting).toEqual({ status: 204 });
    expect(rx.state.connections).toBe(2);
  });

  test('undici that cannot be loaded: the worker fails before it is ready, attempts go in-thread once', async () => {
    const rx = await server((s) => s.write('HTTP/1.1 204 No Content\r\n\r\n'));
    const { t, answered } = transport(4, { undiciPath: '/nonexistent/undici/index.js' });
    const outcomes = await Promise.all([send(t, rx.url), send(t, rx.url)]);
    expect(outcomes).toEqual([{ status: 204 }, { status: 204 }]);
    expect(rx.state.requests).toBe(2);
    expect(answered).toMatchObject({ count: 0, workers: 1 });
    await vi.waitFor(() => expect(answered.exited).toEqual([1]));
  });
});
