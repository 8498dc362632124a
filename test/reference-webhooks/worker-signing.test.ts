import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, test } from 'vitest';
import { type DeliveryWorker, workerTransport } from '../../src/reference/adapters/delivery-worker.js';
import { ManualClock } from '../../src/reference/domain/clock.js';
import { EventBus } from '../../src/reference/domain/events.js';
import { toWebhookEvent } from '../../src/reference/webhooks/events.js';
import { createWebhookService } from '../../src/reference/webhooks/index.js';
import { signedHeaders, signRequest } from '../../src/reference/webhooks/sign.js';
import { Abort, type Transport } from '../../src/reference/webhooks/transport.js';
import { hmac, SHOP_A, succeeded, T0 } from './helpers.js';

// The worker transport signs in the worker (sendSigned): the bytes on the wire must be those the main thread's
// signedHeaders gives, with the secret current at each attempt, and the secret must never leak into a text.

const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

/** A TCP receiver that keeps each request's raw bytes; `status(n)` is the n-th request's answer (1-based). */
async function rawReceiver(status: (n: number) => number = () => 204) {
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const srv = createServer((socket) => {
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
        requests.push(buf.slice(0, end + 4 + length));
        buf = buf.slice(end + 4 + length);
        socket.write(`HTTP/1.1 ${status(requests.length)} X\r\nContent-Length: 0\r\n\r\n`);
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
  return { requests, url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/hooks` };
}

/** The head's fields of a raw request, lowercase names, as a record. */
function headersOf(raw: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of raw.slice(0, raw.indexOf('\r\n\r\n')).split('\r\n').slice(1)) {
    const i = line.indexOf(':');
    out[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
  }
  return out;
}
const bodyOf = (raw: string) => raw.slice(raw.indexOf('\r\n\r\n') + 4);

function workers(extra: { undiciPath?: string } = {}) {
  const seen = { answered: 0 };
  const createWorker = (source: string, workerData: unknown): DeliveryWorker => {
    const w = new Worker(source, { eval: true, workerData });
    w.on('message', (batch: unknown) => {
      if (Array.isArray(batch)) seen.answered += batch.length;
    });
    return w;
  };
  const t = workerTransport({ maxSockets: 4, createWorker, ...extra });
  closers.push(() => t.close());
  return { t, seen };
}

const SECRET = 'whs_test_0123456789abcdef0123456789abcdef';

describe('signing in the delivery worker', () => {
  test.each(['v1', 'v2'] as const)(
    '%s: the worker signs byte for byte what the main thread signs',
    async (version) => {
      const rx = await rawReceiver();
      const event = toWebhookEvent(succeeded())!;
      const { t, seen } = workers();
      const preSigned = signedHeaders(event, SECRET, version, T0 + 999);
      expect(await t.send(rx.url, event.body, { ...preSigned }, new Abort())).toBe(204);
      const sign = signRequest(event, SECRET, version, T0 + 999);
      expect(await t.sendSigned!(rx.url, event.body, sign, new Abort())).toBe(204);
      expect(seen.answered).toBe(2); // both went through the worker
      expect(rx.requests[1]).toBe(rx.requests[0]);
      const h = headersOf(rx.requests[1]!);
      for (const [name, value] of Object.entries(preSigned)) expect(h[name]).toBe(value);
      const body = bodyOf(rx.requests[1]!);
      expect(body).toBe(new TextDecoder().decode(event.body));
      const ts = Math.floor(T0 / 1000);
      expect(h['x-psp-signature']).toBe(
        version === 'v1'
          ? `sha256=${hmac(SECRET, body)}`
          : `t=${ts},v1=${hmac(SECRET, body)},v2=${hmac(SECRET, `${ts}.${body}`)}`,
      );
    },
  );

  test('a worker that cannot start: the fallback signs on the main thread, same headers', async () => {
    const rx = await rawReceiver();
    const event = toWebhookEvent(succeeded())!;
    const { t, seen } = workers({ undiciPath: '/nonexistent/undici.js' });
    const sign = signRequest(event, SECRET, 'v2', T0);
    expect(await t.sendSigned!(rx.url, event.body, sign, new Abort())).toBe(204);
    expect(seen.answered).toBe(0);
    const h = headersOf(rx.requests[0]!);
    for (const [name, value] of Object.entries(signedHeaders(event, SECRET, 'v2', T0)))
      expect(h[name]).toBe(value);
  });

  test.each(['v1', 'v2'] as const)(
    '%s: service deliveries through the worker match the in-thread transport, header for header',
    async (version) => {
      const clock = () => new ManualClock(T0);
      const run = async (transport: Transport | undefined) => {
        const rx = await rawReceiver();
        const bus = new EventBus();
        const svc = createWebhookService({ bus, clock: clock(), ...(transport ? { transport } : {}) });
        closers.push(() => svc.close());
        const ep = svc.createEndpoint(SHOP_A, { url: rx.url, signature_version: version });
        return { rx, bus, svc, ep };
      };
      const a = await run(workers().t);
      const b = await run(undefined); // the default in-thread transport, signing on this thread
      const p = succeeded();
      a.bus.publish(p);
      b.bus.publish(p);
      await Promise.all([a.svc.idle(), b.svc.idle()]);
      const ha = headersOf(a.rx.requests[0]!);
      const hb = headersOf(b.rx.requests[0]!);
      // Same payment, same clock; the event ids and secrets are each service's own. Each signature checks against
      // its own body and secret; everything else is the same, header for header.
      const ba = bodyOf(a.rx.requests[0]!);
      const bb = bodyOf(b.rx.requests[0]!);
      const idOf = (body: string) => (JSON.parse(body) as { id: string }).id;
      expect(ba.replace(idOf(ba), 'evt')).toBe(bb.replace(idOf(bb), 'evt'));
      expect(ha['x-psp-event-id']).toBe(idOf(ba));
      expect(hb['x-psp-event-id']).toBe(idOf(bb));
      expect(Object.keys(ha).sort()).toEqual(Object.keys(hb).sort());
      for (const name of ['content-type', 'user-agent', 'x-psp-timestamp', 'content-length'])
        expect(ha[name]).toBe(hb[name]);
      const ts = Math.floor(T0 / 1000);
      const expected = (secret: string, body: string) =>
        version === 'v1'
          ? `sha256=${hmac(secret, body)}`
          : `t=${ts},v1=${hmac(secret, body)},v2=${hmac(secret, `${ts}.${body}`)}`;
      expect(ha['x-psp-signature']).toBe(expected(a.ep.secret, ba));
      expect(hb['x-psp-signature']).toBe(expected(b.ep.secret, bb));
    },
  );

  test('a rotation between attempts: each attempt is signed (in the worker) with the secret current then', async () => {
    const rx = await rawReceiver((n) => (n === 1 ? 503 : 204));
    const bus = new EventBus();
    const clock = new ManualClock(T0);
    const { t, seen } = workers();
    const svc = createWebhookService({ bus, clock, transport: t });
    closers.push(() => svc.close());
    const ep = svc.createEndpoint(SHOP_A, { url: rx.url });
    bus.publish(succeeded());
    await svc.idle();
    const { secret: rotated } = svc.rotateSecret(ep.id);
    expect(rotated).not.toBe(ep.secret);
    await clock.advance(10_000);
    await svc.idle();
    expect(rx.requests).toHaveLength(2);
    expect(seen.answered).toBe(2);
    const check = (raw: string, secret: string) => {
      const h = headersOf(raw);
      const body = bodyOf(raw);
      const ts = h['x-psp-timestamp'];
      return h['x-psp-signature'] === `t=${ts},v1=${hmac(secret, body)},v2=${hmac(secret, `${ts}.${body}`)}`;
    };
    expect(check(rx.requests[0]!, ep.secret)).toBe(true);
    expect(check(rx.requests[1]!, rotated)).toBe(true);
    expect(check(rx.requests[1]!, ep.secret)).toBe(false);
    expect(headersOf(rx.requests[1]!)['x-psp-timestamp']).toBe(String(Math.floor(T0 / 1000) + 10));
  });

  test('the secret handed to the worker appears in no error, log line or delivery log entry', async () => {
    const gone = await rawReceiver();
    const refused = `http://127.0.0.1:${new URL(gone.url).port}/x`;
    await closers.pop()!(); // the receiver is closed: its port refuses connections
    const { t } = workers();
    const event = toWebhookEvent(succeeded())!;
    const errors: unknown[] = [];
    for (const url of [refused, 'ftp://127.0.0.1:21/x', 'http://[::1/bad']) {
      await t.sendSigned!(url, event.body, signRequest(event, SECRET, 'v2', T0), new Abort()).then(
        () => errors.push('delivered?'),
        (e: unknown) => errors.push(e),
      );
    }
    expect(errors).toHaveLength(3);
    expect((errors[0] as { code?: string }).code).toBe('ECONNREFUSED');
    for (const e of errors) {
      for (const text of [String(e), JSON.stringify(e), inspect(e, { depth: 5, showHidden: true })])
        expect(text).not.toContain('whs_');
    }
    const bus = new EventBus();
    const lines: string[] = [];
    const svc = createWebhookService({
      bus,
      clock: new ManualClock(T0),
      transport: t,
      logger: (l) => lines.push(l),
    });
    closers.push(() => svc.close());
    const ep = svc.createEndpoint(SHOP_A, { url: refused });
    bus.publish(succeeded());
    bus.publish(succeeded({ webhookUrl: 'ftp://127.0.0.1:21/x' }));
    await svc.idle();
    const log = svc.deliveries(ep.id);
    expect(log.map((d) => d.error)).toContain('connection failed: ECONNREFUSED');
    for (const text of [...lines, ...log.map((d) => JSON.stringify(d))]) expect(text).not.toContain('whs_');
  });
});
