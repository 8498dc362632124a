import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { ManualClock } from '../../../src/reference/domain/clock.js';
import { EventBus } from '../../../src/reference/domain/events.js';
import { createWebhookService } from '../../../src/reference/webhooks/index.js';
import { SHOP_A, succeeded, T0 } from './helpers.js';

// What the webhook service makes of the answers receivers really give, byte by byte from a TCP server: the status
// and error text in the delivery log, whether the attempt is retried, and how many connections the receiver saw.

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

/** A webhook service on the default fetch, with one endpoint at `url`. */
function service(url: string) {
  const bus = new EventBus();
  const clock = new ManualClock(T0);
  const svc = createWebhookService({ bus, clock });
  closers.push(() => svc.close());
  const ep = svc.createEndpoint(SHOP_A, { url });
  /** Publishes one event, waits for its first attempt and answers that attempt's log entry. */
  const deliver = async () => {
    const before = svc.deliveries(ep.id).length;
    bus.publish(succeeded());
    await svc.idle();
    return svc.deliveries(ep.id)[before]!;
  };
  return { svc, ep, deliver };
}

const delivered = (status: number) => ({ status_code: status, error: null, next_attempt_at: null });

describe('the webhook service against raw receivers', () => {
  test('a content-length answer leaves the connection for the next delivery', async () => {
    const rx = await server((s) => s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'));
    const { deliver } = service(`${rx.url}?a=1`);
    for (let i = 0; i < 3; i++) expect(await deliver()).toMatchObject(delivered(200));
    expect(rx.state.requests).toBe(3);
  });

  test('a chunked answer split across packets, extensions and trailers included, is a success', async () => {
    const rx = await server((s) =>
      dribble(
        s,
        'HTTP/1.1 202 Accepted\r\nTransfer-Encoding: chunked\r\n\r\n5;x=1\r\nhello\r\n0\r\nX-T: 1\r\n\r\n',
      ),
    );
    const { deliver } = service(rx.url);
    expect(await deliver()).toMatchObject(delivered(202));
    expect(await deliver()).toMatchObject(delivered(202));
  });

  test('a status line split across packets is read whole', async () => {
    const rx = await server((s) =>
      dribble(s, 'HTTP/1.1 201 Created\r\nContent-Length: 10\r\n\r\n0123456789'),
    );
    const { deliver } = service(rx.url);
    expect(await deliver()).toMatchObject(delivered(201));
    expect(await deliver()).toMatchObject(delivered(201));
  });

  test('an informational answer (103 Early Hints) is skipped: the final status counts', async () => {
    const rx = await server((s) =>
      s.write('HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n'),
    );
    expect(await service(rx.url).deliver()).toMatchObject(delivered(204));
  });

  test('Connection: close, HTTP/1.0 and extra bytes after an answer: the status counts each time', async () => {
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
    const { deliver } = service(rx.url);
    expect(await deliver()).toMatchObject(delivered(200));
    expect(await deliver()).toMatchObject(delivered(200));
    expect(await deliver()).toMatchObject({ status_code: 500, error: 'HTTP 500' });
    expect(await deliver()).toMatchObject(delivered(204));
    expect(rx.state.requests).toBe(4);
  });

  test('an answer without framing: its status counts at once', async () => {
    const rx = await server((s) => {
      s.write('HTTP/1.1 503 Busy\r\n\r\nsome text');
      setImmediate(() => s.end('more'));
    });
    expect(await service(rx.url).deliver()).toMatchObject({ status_code: 503, error: 'HTTP 503' });
  });

  test('an answer that announces 1 MB and never sends it is a success; the connection is let go', async () => {
    const rx = await server((s, n) => {
      if (n === 1) s.write(`HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n${'a'.repeat(2_000)}`);
      else s.write('HTTP/1.1 204 No Content\r\n\r\n');
    });
    const { deliver } = service(rx.url);
    expect(await deliver()).toMatchObject(delivered(200));
    expect(await deliver()).toMatchObject(delivered(204));
    expect(rx.state.requests).toBe(2); // each sent once
    expect(rx.state.connections).toBeGreaterThanOrEqual(2); // the first connection was dropped, not reused
  });

  test('a redirect is not followed: one request, and the 3xx is a failure in the log', async () => {
    const target = await server((s) => s.write('HTTP/1.1 204 No Content\r\n\r\n'));
    const rx = await server((s) =>
      s.write(`HTTP/1.1 302 Found\r\nLocation: ${target.url}\r\nContent-Length: 0\r\n\r\n`),
    );
    expect(await service(rx.url).deliver()).toMatchObject({
      status_code: 302,
      error: 'redirect not followed (HTTP 302)',
    });
    expect(rx.state.requests).toBe(1);
    expect(target.state.requests).toBe(0);
  });

  test.each([
    ['garbage instead of HTTP', 'this is not http\r\n\r\n'],
    ['two different content-lengths', 'HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nx'],
    ['a header line without a colon', 'HTTP/1.1 200 OK\r\nbroken\r\n\r\n'],
    ['a reset before the status line', ''],
  ])('%s is a connection failure in the delivery log, retried', async (_name, answer) => {
    const rx = await server((s) => (answer ? s.write(answer) : s.destroy()));
    const entry = await service(rx.url).deliver();
    expect(entry).toMatchObject({
      attempt: 1,
      status_code: null,
      next_attempt_at: new Date(T0 + 10_000).toISOString(),
    });
    expect(entry.error).toMatch(/^connection failed: \S/);
    expect(rx.state.requests).toBe(1);
  });

  test('a refused connection says ECONNREFUSED in the delivery log', async () => {
    const gone = await server(() => {});
    await gone.close();
    expect((await service(gone.url).deliver()).error).toBe('connection failed: ECONNREFUSED');
  });
});
