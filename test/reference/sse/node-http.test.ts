import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { listenNode } from '../../../src/reference/adapters/node-http.js';
import { ManualClock } from '../../../src/reference/domain/clock.js';
import { EventBus } from '../../../src/reference/domain/events.js';
import { createEventStreamHub } from '../../../src/reference/sse/index.js';
import { startReference } from '../../../src/reference/start.js';
import { MERCHANT, oneOfEachKind, payment, paymentChanged, SHOP_A, T0 } from '../webhooks/helpers.js';

// The hub's stream is a plain `Response` body; the node adapter writes it as it writes any Response. These tests
// hold the stream served over real node:http sockets on 127.0.0.1 to every rule of the fetch path, byte for byte.
// Waits count event-loop turns, never wall-clock time, so a loaded machine only makes them slower.

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' };

/** A hub behind the node adapter: `/events?k=<keyId>` opens a stream of MERCHANT, ended by the request's signal. */
async function setup(options: { bufferSize?: number; bufferBytes?: number } = {}) {
  const bus = new EventBus();
  const clock = new ManualClock(T0);
  const hub = createEventStreamHub({ bus, clock, ...options });
  cleanups.push(() => hub.close());
  const server = await listenNode(
    (req) =>
      new Response(
        hub.open({
          keyId: new URL(req.url).searchParams.get('k')!,
          merchantId: MERCHANT,
          signal: req.signal,
        }),
        { headers: HEADERS },
      ),
    { port: 0 },
  );
  cleanups.push(() => server.close());
  return { bus, clock, hub, server };
}

/** Waits (event-loop turns, no timer) until `ok()` holds; fails after `turns`. */
async function until(ok: () => boolean, what: string, turns = 200_000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (ok()) return;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error(`never happened: ${what}`);
}

/** An HTTP client on a plain socket that keeps the raw bytes, so the chunk framing itself can be checked. */
function rawClient(port: number, path: string, { version = '1.1', headers = '' } = {}) {
  const socket: Socket = connect(port, '127.0.0.1');
  cleanups.push(() => socket.destroy());
  let raw = Buffer.alloc(0);
  let closed = false;
  socket.on('data', (b) => {
    raw = Buffer.concat([raw, b]);
  });
  socket.on('close', () => {
    closed = true;
  });
  socket.write(`GET ${path} HTTP/${version}\r\nHost: 127.0.0.1:${port}\r\n${headers}\r\n`);
  const split = () => {
    const at = raw.indexOf('\r\n\r\n');
    return at < 0 ? undefined : { head: raw.subarray(0, at).toString('latin1'), body: raw.subarray(at + 4) };
  };
  return {
    socket,
    get closed() {
      return closed;
    },
    get head() {
      return split()?.head ?? '';
    },
    /** The body as sent (chunk framing included for HTTP/1.1). */
    get body() {
      return split()?.body ?? Buffer.alloc(0);
    },
    /** The chunks of a chunked body, and whether the last (empty) chunk arrived. */
    chunks(): { chunks: Buffer[]; complete: boolean } {
      const body = this.body;
      const chunks: Buffer[] = [];
      let at = 0;
      for (;;) {
        const eol = body.indexOf('\r\n', at);
        if (eol < 0) return { chunks, complete: false };
        const size = Number.parseInt(body.subarray(at, eol).toString('latin1'), 16);
        if (size === 0) return { chunks, complete: body.subarray(eol, eol + 4).toString() === '\r\n\r\n' };
        if (body.length < eol + 2 + size + 2) return { chunks, complete: false };
        chunks.push(body.subarray(eol + 2, eol + 2 + size));
        expect(body.subarray(eol + 2 + size, eol + 4 + size).toString()).toBe('\r\n');
        at = eol + 4 + size;
      }
    },
    /** The decoded body text of a chunked response. */
    text(): string {
      return Buffer.concat(this.chunks().chunks).toString('utf8');
    },
  };
}

/** Reads a web stream to its end, as text. */
async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
  return text;
}

/** One of each event kind; the order id has Cyrillic letters, so byte and character lengths differ. */
const events = () => oneOfEachKind('Заказ-№1');

describe('the event stream over node:http', () => {
  test('the bytes equal the fetch path: connected, every event, ping on the service clock, then the end', async () => {
    const { bus, clock, hub, server } = await setup();
    const wire = rawClient(server.port, '/events?k=wire');
    await until(() => wire.text() === ': connected\n\n', 'connected on the socket');
    expect(wire.head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(wire.head.toLowerCase()).toContain('transfer-encoding: chunked');
    expect(wire.head.toLowerCase()).toContain('content-type: text/event-stream; charset=utf-8');
    const web = readAll(hub.open({ keyId: 'web', merchantId: MERCHANT }));

    for (const e of events()) bus.publish(e);
    await clock.advance(25_000);
    bus.publish(paymentChanged(payment({ status: 'processing' }), 'processing', 'succeeded', { at: T0 + 9 }));
    hub.close();
    await until(() => wire.chunks().complete, 'the last chunk');

    const webText = await web;
    expect(wire.text()).toBe(webText);
    // One chunk per message, each a whole frame: connected, 7 events, ping, 1 event.
    const { chunks } = wire.chunks();
    expect(chunks.map((c) => c.toString().split('\n')[0])).toEqual([
      ': connected',
      'event: payment.created',
      'event: payment.status_changed',
      'event: payment.status_changed',
      'event: payout.created',
      'event: payout.status_changed',
      'event: refund.created',
      'event: payment.status_changed',
      ': ping',
      'event: payment.status_changed',
    ]);
    for (const c of chunks)
      expect(c.toString()).toMatch(/^(: [a-z]+|event: [a-z_.]+\ndata: \{[^\n]*\})\n\n$/);
    expect(webText).toContain('"order_id":"Заказ-№1"');
  });

  test('an HTTP/1.0 client gets the same frames unchunked, ended by closing', async () => {
    const { bus, hub, server } = await setup();
    const old = rawClient(server.port, '/events?k=old', { version: '1.0' });
    await until(() => old.body.toString() === ': connected\n\n', 'connected');
    bus.publish(events()[0]!);
    await until(() => old.body.includes('event: payment.created'), 'the event');
    hub.close();
    await until(() => old.closed, 'the close');
    expect(old.body.toString()).toMatch(/^: connected\n\nevent: payment\.created\ndata: \{[^\n]*\}\n\n$/);
  });

  test('a second stream of the same key writes ": replaced" on the first and ends it', async () => {
    const { hub, server } = await setup();
    const first = rawClient(server.port, '/events?k=same');
    await until(() => first.text() === ': connected\n\n', 'first connected');
    const second = rawClient(server.port, '/events?k=same');
    await until(() => first.chunks().complete, 'the first ends');
    expect(first.text()).toBe(': connected\n\n: replaced\n\n');
    await until(() => second.text() === ': connected\n\n', 'second connected');
    expect(hub.stats().connections).toBe(1);
  });

  test('a client that stops reading loses messages (counted); the hub holds at most its cap; a reader gets all', async () => {
    const bufferBytes = 64 * 1024;
    const { bus, hub, server } = await setup({ bufferBytes });
    const slow = rawClient(server.port, '/events?k=slow');
    await until(() => slow.text() === ': connected\n\n', 'slow connected');
    slow.socket.pause();
    const fast = rawClient(server.port, '/events?k=fast');
    await until(() => fast.text() === ': connected\n\n', 'fast connected');

    // ~8 KB messages fill the kernel's and node's socket buffers, then the stream's queue up to the cap.
    const big = payment({ status: 'pending', order_id: 'x'.repeat(8 * 1024) });
    let sent = 0;
    let maxBuffered = 0;
    const publish = () => {
      bus.publish({
        type: 'payment.created',
        at: T0 + sent,
        merchantId: MERCHANT,
        shopId: SHOP_A,
        payment: big,
        webhookUrl: null,
      });
      sent++;
      maxBuffered = Math.max(maxBuffered, hub.stats().bufferedBytes);
    };
    while (hub.stats().dropped < 20 && sent < 4000) {
      publish();
      // Let the reading client drain between small batches, as a real event rate would.
      if (sent % 8 === 0) await new Promise((r) => setImmediate(r));
    }
    const { dropped, connections } = hub.stats();
    expect(dropped).toBeGreaterThanOrEqual(20);
    expect(connections).toBe(2);
    // The slow stream's queue reached the cap and never passed it (the fast one holds a little at most).
    expect(maxBuffered).toBeGreaterThan(bufferBytes - 9 * 1024);
    expect(maxBuffered).toBeLessThanOrEqual(2 * bufferBytes);
    await until(() => (fast.text().match(/event: payment\.created/g) ?? []).length === sent, 'every event');
    const ats = fast
      .text()
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => Date.parse(JSON.parse(l.slice(6)).at) - T0);
    expect(ats).toEqual(Array.from({ length: sent }, (_, i) => i));
    slow.socket.destroy();
    await until(() => hub.stats().connections === 1, 'the slow stream leaves');
    expect(hub.stats().bufferedBytes).toBe(0);
  });

  test('a client that disconnects leaves the hub at once; with none left the heartbeat timer is gone', async () => {
    const { clock, hub, server } = await setup();
    const clients = ['a', 'b', 'c'].map((k) => rawClient(server.port, `/events?k=${k}`));
    await until(() => clients.every((c) => c.text() === ': connected\n\n'), 'all connected');
    expect(hub.stats().connections).toBe(3);
    expect(clock.nextDue()).toBeDefined();
    for (const c of clients) c.socket.destroy();
    await until(() => hub.stats().connections === 0, 'all gone');
    expect(clock.nextDue()).toBeUndefined();
    expect(hub.stats().bufferedBytes).toBe(0);
  });

  test('a client that leaves before the answer is written opens nothing that stays', async () => {
    const bus = new EventBus();
    const hub = createEventStreamHub({ bus, clock: new ManualClock(T0) });
    cleanups.push(() => hub.close());
    let answered: Promise<unknown> | undefined;
    const server = await listenNode(
      (req) => {
        // Answer only once the client is gone, with a stream that no signal ends: the adapter must cancel it.
        const answer = new Promise<Response>((resolve) => {
          req.signal.addEventListener('abort', () =>
            resolve(new Response(hub.open({ keyId: 'late', merchantId: MERCHANT }), { headers: HEADERS })),
          );
        });
        answered = answer;
        return answer;
      },
      { port: 0 },
    );
    cleanups.push(() => server.close());
    const client = rawClient(server.port, '/events');
    await until(() => answered !== undefined, 'the request reached the handler');
    client.socket.destroy();
    await answered;
    await until(() => hub.stats().connections === 0, 'the stream is gone');
    bus.publish(events()[0]!);
    expect(hub.stats()).toMatchObject({ connections: 0, dropped: 0, bufferedBytes: 0 });
  });
});

describe('GET /api/v1/public/events through startReference', () => {
  test('one stream per key, modes apart, heartbeat on the service clock, HEAD opens nothing', async () => {
    const ref = await startReference({ port: 0, clock: 'manual' });
    cleanups.push(() => ref.close());
    const { merchant_id, terminal_id, api_key: testKey } = ref;
    await ref.control.updateMerchant(merchant_id, { live_enabled: true });
    const liveKey = (await ref.control.createApiKey(terminal_id, { mode: 'live' })).api_key;
    const port = Number(new URL(ref.base_url).port);
    const open = (key: string) =>
      rawClient(port, '/api/v1/public/events', { headers: `Authorization: Bearer ${key}\r\n` });

    const testStream = open(testKey);
    const liveStream = open(liveKey);
    await until(
      () => testStream.text() === ': connected\n\n' && liveStream.text() === ': connected\n\n',
      'connected',
    );
    // HEAD answers the stream's head and ends: it opens no stream, so it replaces none of this key's.
    const head = await fetch(`${ref.base_url}/api/v1/public/events`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${testKey}` },
    });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');

    expect(testStream.head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(testStream.head.toLowerCase()).toMatch(/\r\nx-request-id: req_/);
    expect(testStream.head.toLowerCase()).toContain('content-type: text/event-stream; charset=utf-8');
    const create = async (key: string, orderId: string) => {
      const res = await fetch(`${ref.base_url}/api/v1/public/payments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ amount: 700, order_id: orderId }),
      });
      expect(res.status).toBe(201);
      return ((await res.json()) as { payment: { id: string } }).payment.id;
    };
    const testId = await create(testKey, 'T-1');
    const liveId = await create(liveKey, 'L-1');
    await until(() => testStream.text().includes(testId) && liveStream.text().includes(liveId), 'the events');
    // Nothing came between (a HEAD that opened a stream would have replaced this one).
    expect(testStream.text()).toMatch(
      /^: connected\n\nevent: payment\.created\ndata: \{"kind":"payment\.created"[^\n]*\}\n\n$/,
    );
    // A test key's stream sees only test objects' events, a live key's only live ones.
    expect(liveStream.text()).not.toContain(testId);
    expect(testStream.text()).not.toContain(liveId);

    // Ten years on the service clock: one heartbeat per stream, at once.
    await ref.control.advanceClock(10 * 365 * 24 * 3600);
    await until(() => testStream.text().endsWith(': ping\n\n'), 'the ping');
    await until(() => liveStream.text().endsWith(': ping\n\n'), 'the ping');
    expect(testStream.text().match(/: ping\n\n/g)).toHaveLength(1);

    // A second stream of the test key replaces the first: `: replaced`, then the end.
    const again = open(testKey);
    await until(() => testStream.chunks().complete, 'the first stream ends');
    expect(testStream.text().endsWith(': ping\n\n: replaced\n\n')).toBe(true);
    await until(() => again.text() === ': connected\n\n', 'the new stream');
    expect(liveStream.chunks().complete).toBe(false);
  });
});
