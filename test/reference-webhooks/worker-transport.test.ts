import { EventEmitter } from 'node:events';
import { createServer as createNetServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { type DeliveryWorker, workerTransport } from '../../src/reference/adapters/delivery-worker.js';
import { ManualClock } from '../../src/reference/domain/clock.js';
import { EventBus } from '../../src/reference/domain/events.js';
import { createReference } from '../../src/reference/service.js';
import { toWebhookEvent } from '../../src/reference/webhooks/events.js';
import { createWebhookService, type WebhookService } from '../../src/reference/webhooks/index.js';
import { signedHeaders } from '../../src/reference/webhooks/sign.js';
import { Abort, nodeTransport, type Transport } from '../../src/reference/webhooks/transport.js';
import { hmac, receiver, SHOP_A, succeeded, T0 } from './helpers.js';

const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
  vi.useRealTimers();
});

/** Real workers, created as the transport's default would, kept at hand so a test can watch or kill them. */
function realWorkers() {
  const made: Worker[] = [];
  const exited: number[] = [];
  /** Answers the workers sent back: proof that they, not the in-thread fallback, did the sending. */
  const answered = { count: 0 };
  const createWorker = (source: string, workerData: unknown): DeliveryWorker => {
    const w = new Worker(source, { eval: true, workerData });
    w.on('exit', (code) => exited.push(code));
    w.on('message', (batch: unknown) => {
      if (Array.isArray(batch)) answered.count += batch.length;
    });
    made.push(w);
    return w;
  };
  return { made, exited, answered, createWorker };
}

/** A TCP receiver that keeps every request's raw bytes; `answer` decides what each connection hears back. */
async function rawReceiver(answer: (socket: Socket, raw: string) => void) {
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const closed: Array<() => void> = [];
  const waiting: Array<{ n: number; resolve: () => void }> = [];
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      for (const c of closed.splice(0)) c();
    });
    socket.on('error', () => {});
    let buf = '';
    socket.on('data', (chunk) => {
      buf += chunk.toString('latin1');
      const head = buf.indexOf('\r\n\r\n');
      if (head < 0) return;
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(buf.slice(0, head))?.[1] ?? 0);
      if (buf.length < head + 4 + length) return;
      const raw = buf.slice(0, head + 4 + length);
      buf = buf.slice(raw.length);
      requests.push(raw);
      answer(socket, raw);
      for (const w of waiting.filter((x) => x.n <= requests.length)) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks?shop=a`,
    requests,
    /** Resolves when one of the receiver's connections closes. */
    nextClose: () => new Promise<void>((resolve) => closed.push(resolve)),
    /** Resolves once `n` requests have arrived (an event, not a poll: fake timers stay where the test put them). */
    arrived: (n: number) =>
      new Promise<void>((resolve) => {
        if (requests.length >= n) resolve();
        else waiting.push({ n, resolve });
      }),
  };
}

const NO_CONTENT = 'HTTP/1.1 204 No Content\r\n\r\n';

/** A raw request's head as sorted `name: value` lines, names lowercased: what a receiver's parser sees. */
function fields(raw: string): string[] {
  const [line, ...rest] = raw.slice(0, raw.indexOf('\r\n\r\n')).split('\r\n');
  return [line!, ...rest.map((l) => l.replace(/^[^:]+/, (n) => n.toLowerCase())).sort()];
}

function service(transport: Transport, options: { deadlineMs?: number } = {}) {
  const bus = new EventBus();
  const clock = new ManualClock(T0);
  const lines: string[] = [];
  const svc: WebhookService = createWebhookService({
    bus,
    clock,
    transport,
    logger: (line) => lines.push(line),
    ...options,
  });
  closers.push(() => svc.close());
  return { bus, clock, svc, lines };
}

describe('the worker transport', () => {
  test('a signed delivery arrives with the same request line, header fields and body as in-thread', async () => {
    const rx = await rawReceiver((socket) => socket.write(NO_CONTENT));
    const event = toWebhookEvent(succeeded())!;
    const secret = 'whs_test_0123456789abcdef0123456789abcdef';
    const { made, answered, createWorker } = realWorkers();
    const viaWorker = workerTransport({ maxSockets: 4, createWorker });
    const inThread = nodeTransport(4)!;
    closers.push(
      () => viaWorker.close(),
      () => inThread.close(),
    );
    const headers = () => signedHeaders(event, secret, 'v2', T0);

    expect(await inThread.send(rx.url, event.body, headers(), new Abort())).toBe(204);
    expect(await viaWorker.send(rx.url, event.body, headers(), new Abort())).toBe(204);
    expect(made).toHaveLength(1);
    expect(answered.count).toBe(1); // the worker sent it, not the in-thread fallback
    expect(rx.requests).toHaveLength(2);
    // The clients frame the head differently (undici puts Host first, lowercase); the fields and body are the same.
    expect(fields(rx.requests[1]!)).toEqual(fields(rx.requests[0]!));
    expect(rx.requests[1]!.slice(rx.requests[1]!.indexOf('\r\n\r\n'))).toBe(
      rx.requests[0]!.slice(rx.requests[0]!.indexOf('\r\n\r\n')),
    );
    const body = new TextDecoder().decode(event.body);
    expect(rx.requests[1]!.endsWith(`\r\n\r\n${body}`)).toBe(true);
    expect(rx.requests[1]).toContain(`v2=${hmac(secret, `${Math.floor(T0 / 1000)}.${body}`)}`);
    expect(rx.requests[1]).toMatch(/^POST \/hooks\?shop=a HTTP\/1\.1\r\n/);
  });

  test('the worker starts with the first delivery, not before, and one worker carries them all', async () => {
    const rx = await rawReceiver((socket) => socket.write(NO_CONTENT));
    const { made, answered, createWorker } = realWorkers();
    const { bus, svc } = service(workerTransport({ maxSockets: 4, createWorker }));
    const ep = svc.createEndpoint(SHOP_A, { url: rx.url });
    expect(made).toHaveLength(0);
    for (let i = 0; i < 20; i++) bus.publish(succeeded());
    await svc.idle();
    expect(made).toHaveLength(1);
    expect(answered.count).toBe(20);
    expect(rx.requests).toHaveLength(20);
    expect(svc.deliveries(ep.id).every((d) => d.status_code === 204 && d.error === null)).toBe(true);
  });

  test('the deadline aborts a receiver that never answers, and the worker lets its socket go', async () => {
    const rx = await rawReceiver(() => {}); // reads the request, never answers
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { createWorker } = realWorkers();
    const { bus, svc } = service(workerTransport({ maxSockets: 4, createWorker }), { deadlineMs: 15_000 });
    const ep = svc.createEndpoint(SHOP_A, { url: rx.url });
    bus.publish(succeeded());
    await rx.arrived(1);
    const socketClosed = rx.nextClose();
    await vi.advanceTimersByTimeAsync(14_999);
    expect(svc.deliveries(ep.id)).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await svc.idle();
    expect(svc.deliveries(ep.id)[0]).toMatchObject({
      attempt: 1,
      status_code: null,
      error: 'timeout: no answer within 15 s',
      next_attempt_at: new Date(T0 + 10_000).toISOString(),
    });
    await socketClosed; // the worker destroyed the request it was told to drop
  });

  test('close() settles the attempts in flight and terminates the worker', async () => {
    const rx = await rawReceiver(() => {});
    const { made, exited, createWorker } = realWorkers();
    const { bus, svc } = service(workerTransport({ maxSockets: 4, createWorker }));
    const ep = svc.createEndpoint(SHOP_A, { url: rx.url });
    bus.publish(succeeded());
    bus.publish(succeeded());
    await rx.arrived(2);
    expect(svc.stats().inFlight).toBe(2);
    await svc.close();
    expect(svc.stats().inFlight).toBe(0);
    const log = svc.deliveries(ep.id);
    expect(log).toHaveLength(2);
    for (const d of log)
      expect(d).toMatchObject({ error: 'aborted: the webhook service closed', next_attempt_at: null });
    await vi.waitFor(() => expect(exited).toHaveLength(1));
    expect(made).toHaveLength(1);
  });

  test('a worker that dies fails its attempts in flight; they are retried (in-thread) and delivered once each', async () => {
    let answering = false;
    const rx = await rawReceiver((socket) => {
      if (answering) socket.write(NO_CONTENT);
    });
    const { made, createWorker } = realWorkers();
    const { bus, clock, svc, lines } = service(workerTransport({ maxSockets: 4, createWorker }));
    const ep = svc.createEndpoint(SHOP_A, { url: rx.url });
    bus.publish(succeeded());
    bus.publish(succeeded());
    await rx.arrived(2);
    await made[0]!.terminate(); // as if it crashed
    await svc.idle();
    const failed = svc.deliveries(ep.id);
    expect(failed).toHaveLength(2);
    for (const d of failed) {
      expect(d.status_code).toBeNull();
      expect(d.error).toMatch(/^connection failed: the delivery worker stopped/);
      expect(d.next_attempt_at).toBe(new Date(T0 + 10_000).toISOString());
    }
    answering = true;
    await clock.advance(10_000);
    await svc.idle();
    const log = svc.deliveries(ep.id);
    expect(log.slice(2).map((d) => [d.attempt, d.status_code])).toEqual([
      [2, 204],
      [2, 204],
    ]);
    expect(new Set(log.map((d) => d.event_id)).size).toBe(2);
    expect(rx.requests).toHaveLength(4); // two attempts each, nothing more
    expect(made).toHaveLength(1); // the retries went in-thread, no restart loop
    expect(lines.some((l) => l.includes('attempt 2 delivered (204)'))).toBe(true);
  });

  test('no worker can be created: every attempt goes in-thread, nothing lost', async () => {
    const rx = await rawReceiver((socket) => socket.write(NO_CONTENT));
    let tries = 0;
    const { bus, svc } = service(
      workerTransport({
        maxSockets: 4,
        createWorker: () => {
          tries++;
          throw new Error('no worker_threads here');
        },
      }),
    );
    const ep = svc.createEndpoint(SHOP_A, { url: rx.url });
    for (let i = 0; i < 5; i++) bus.publish(succeeded());
    await svc.idle();
    expect(tries).toBe(1);
    expect(rx.requests).toHaveLength(5);
    expect(svc.deliveries(ep.id).every((d) => d.status_code === 204)).toBe(true);
  });

  test('a worker that fails before it ran: its attempts are sent in-thread once, not failed', async () => {
    const rx = await rawReceiver((socket) => socket.write(NO_CONTENT));
    const posted: unknown[] = [];
    const broken = Object.assign(new EventEmitter(), {
      postMessage: (batch: unknown) => posted.push(batch),
      terminate: () => Promise.resolve(1),
      ref() {},
      unref() {},
    });
    const { bus, svc } = service(workerTransport({ maxSockets: 4, createWorker: () => broken }));
    const ep = svc.createEndpoint(SHOP_A, { url: rx.url });
    bus.publish(succeeded());
    bus.publish(succeeded());
    await vi.waitFor(() => expect(posted).toHaveLength(1));
    broken.emit('error', new Error('eval workers are not supported'));
    broken.emit('exit', 1);
    await svc.idle();
    expect(rx.requests).toHaveLength(2);
    expect(svc.deliveries(ep.id).map((d) => [d.attempt, d.status_code, d.error])).toEqual([
      [1, 204, null],
      [1, 204, null],
    ]);
  });

  test('a worker whose script fails as it starts: its attempts are sent in-thread once, not failed', async () => {
    const rx = await rawReceiver((socket) => socket.write(NO_CONTENT));
    const exited: number[] = [];
    const createWorker = (): DeliveryWorker => {
      // Starts (the 'online' event fires) but throws before it is set up, as a mis-compiled script would.
      const w = new Worker('throw new ReferenceError("__name is not defined")', { eval: true });
      w.on('exit', (code) => exited.push(code));
      return w;
    };
    const { bus, svc } = service(workerTransport({ maxSockets: 4, createWorker }));
    const ep = svc.createEndpoint(SHOP_A, { url: rx.url });
    for (let i = 0; i < 3; i++) bus.publish(succeeded());
    await vi.waitFor(() => expect(svc.deliveries(ep.id)).toHaveLength(3));
    expect(rx.requests).toHaveLength(3);
    expect(svc.deliveries(ep.id).map((d) => [d.attempt, d.status_code])).toEqual([
      [1, 204],
      [1, 204],
      [1, 204],
    ]);
    await vi.waitFor(() => expect(exited).toEqual([1]));
  });

  test('no webhook secret reaches a log line or an error text, whatever happens to the worker', async () => {
    const hanging = await rawReceiver(() => {});
    const { made, createWorker } = realWorkers();
    const { bus, svc, lines } = service(workerTransport({ maxSockets: 4, createWorker }), {
      deadlineMs: 60_000,
    });
    const ep = svc.createEndpoint(SHOP_A, { url: hanging.url });
    expect(ep.secret).toMatch(/^whs_/);
    bus.publish(succeeded());
    await hanging.arrived(1);
    await made[0]!.terminate();
    await svc.idle();
    bus.publish(succeeded({ webhookUrl: 'ftp://127.0.0.1:21/x' }));
    await svc.idle();
    const errors = svc.deliveries(ep.id).map((d) => d.error ?? '');
    expect(errors).toHaveLength(2);
    for (const text of [...lines, ...errors]) expect(text).not.toMatch(/whs_/);
    const sendError = await workerTransport({ maxSockets: 1, createWorker })
      .send('http://127.0.0.1:1/x', new Uint8Array(), { 'x-psp-signature': ep.secret }, new Abort())
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(String(sendError)).not.toMatch(/whs_/);
    expect(JSON.stringify(sendError)).not.toMatch(/whs_/);
  });
});

describe('createReference({ webhookDelivery })', () => {
  test("'worker' delivers through a worker thread; the receiver checks the v2 signature", async () => {
    const rx = await receiver((_q, res) => res.writeHead(204).end());
    closers.push(() => rx.close());
    const ref = createReference({ clock: 'manual', webhookDelivery: 'worker' });
    closers.push(() => ref.close());
    const shop = ref.facts.shop_id;
    const { secret } = ref.cabinet.createWebhookEndpoint(shop, { url: rx.url });
    const res = await ref.fetch(
      new Request('http://ref.test/api/v1/public/payments', {
        method: 'POST',
        headers: { authorization: `Bearer ${ref.facts.api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ amount: 10_000, order_id: 'W-1' }),
      }),
    );
    const { payment } = (await res.json()) as { payment: { id: string } };
    ref.simulator.succeedPayment(payment.id);
    await vi.waitFor(() => expect(rx.seen).toHaveLength(1));
    const seen = rx.seen[0]!;
    const t = seen.headers['x-psp-timestamp'];
    expect(seen.headers['x-psp-signature']).toContain(`v2=${hmac(secret, `${t}.${seen.body}`)}`);
  });
});
