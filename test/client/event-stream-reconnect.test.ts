import { describe, expect, it, vi } from 'vitest';
import { type SseEvent, streamEvents } from '../../src/client/event-stream.js';
import {
  countingFetch,
  frame,
  serversClosedAfterEach,
  sseHead,
  take,
  transport,
  until,
} from '../support/sse-server.js';

const server = serversClosedAfterEach();

const fast = { backoff: { initialDelayMs: 1, maxDelayMs: 5 } };
const created = (id: string) => frame('payment.created', { id, status: 'pending', amount: 1 });

describe('streamEvents reconnection', () => {
  it('reconnects after the server restarts, tells the app, and never holds two connections', async () => {
    const first = await server((_req, res) => {
      sseHead(res);
      res.write(': connected\n\n' + created('before'));
    });
    const port = first.port;
    const onReconnect = vi.fn();
    const onDisconnect = vi.fn();
    const counted = countingFetch();
    const stream = streamEvents(transport(first.url, { fetch: counted.fetch }), {
      ...fast,
      onReconnect,
      onDisconnect,
    });
    const it = stream[Symbol.asyncIterator]();
    expect(((await it.next()).value as SseEvent).payload.id).toBe('before');

    await first.close();
    await server((_req, res) => {
      sseHead(res);
      res.write(': connected\n\n' + created('after'));
    }, port);
    expect(((await it.next()).value as SseEvent).payload.id).toBe('after');
    expect(onDisconnect).toHaveBeenCalled();
    expect(['network_error', 'stream_ended']).toContain(onDisconnect.mock.calls[0]![0].reason);
    expect(onReconnect).toHaveBeenCalledTimes(1);
    expect(onReconnect.mock.calls[0]![0].attempt).toBeGreaterThanOrEqual(1);
    stream.close();
    await it.return?.();
    expect(counted.maxOpen).toBe(1);
  });

  it('reconnects after a 5xx and after the stream ends, one connection at a time, fresh headers each time', async () => {
    const s = await server((_req, res, n) => {
      if (n === 1) {
        res.writeHead(502);
        return void res.end('bad gateway');
      }
      sseHead(res);
      res.end(': connected\n\n' + created(`c${n}`));
    });
    let headerCalls = 0;
    const counted = countingFetch();
    const t = transport(s.url, {
      fetch: counted.fetch,
      headers: () => ({ authorization: `Bearer k${++headerCalls}` }),
    });
    const reasons: string[] = [];
    const events = await take(streamEvents(t, { ...fast, onReconnect: (i) => reasons.push(i.reason) }), 4);
    expect(events.map((e) => e.payload.id)).toEqual(['c2', 'c3', 'c4', 'c5']);
    expect(reasons).toEqual(['http_502', 'stream_ended', 'stream_ended', 'stream_ended']);
    expect(counted.maxOpen).toBe(1);
    expect(s.requests.map((r) => r.headers.authorization)).toEqual([
      'Bearer k1',
      'Bearer k2',
      'Bearer k3',
      'Bearer k4',
      'Bearer k5',
    ]);
  });

  it('honours Retry-After on 429 and 503', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const s = await server((_req, res, n) => {
      if (n === 1) {
        res.writeHead(429, { 'retry-after': '7' });
        return void res.end();
      }
      if (n === 2) {
        res.writeHead(503, { 'retry-after': '3' });
        return void res.end();
      }
      sseHead(res);
      res.write(': connected\n\n' + created('ok'));
    });
    const delays: number[] = [];
    const stream = streamEvents(transport(s.url), { onDisconnect: (i) => delays.push(i.delayMs) });
    const next = stream[Symbol.asyncIterator]().next();
    await until(() => expect(delays).toEqual([7000]));
    await vi.advanceTimersByTimeAsync(6_999);
    expect(s.connections).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    await until(() => expect(delays).toEqual([7000, 3000]));
    await vi.advanceTimersByTimeAsync(3_000);
    expect(((await next).value as SseEvent).payload.id).toBe('ok');
    stream.close();
  });

  it('caps a huge Retry-After at 10 minutes', async () => {
    const s = await server((_req, res) => {
      res.writeHead(503, { 'retry-after': '86400' });
      res.end();
    });
    const delays: number[] = [];
    const stream = streamEvents(transport(s.url), { onDisconnect: (i) => delays.push(i.delayMs) });
    const done = stream[Symbol.asyncIterator]().next();
    await until(() => expect(delays).toEqual([600_000]));
    stream.close();
    expect((await done).done).toBe(true);
  });

  it('backs off exponentially with jitter between failed attempts', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const s = await server((_req, res) => {
      res.writeHead(500);
      res.end();
    });
    const delays: number[] = [];
    const stream = streamEvents(transport(s.url), {
      random: () => 0.5,
      onDisconnect: (i) => delays.push(i.delayMs),
    });
    const done = stream[Symbol.asyncIterator]().next();
    for (let i = 1; i <= 7; i++) {
      await until(() => expect(delays).toHaveLength(i));
      await vi.advanceTimersByTimeAsync(delays[i - 1]!);
    }
    // ceiling = 1 s * 2^(n-1), capped at 30 s; the delay sits at 75 % of it with random() = 0.5.
    expect(delays).toEqual([750, 1500, 3000, 6000, 12000, 22500, 22500]);
    stream.close();
    await done;
  });

  it("takes the server's retry: field as the initial backoff", async () => {
    const s = await server((_req, res) => {
      sseHead(res);
      res.end('retry: 4000\n: connected\n\n');
    });
    const delays: number[] = [];
    const stream = streamEvents(transport(s.url), {
      random: () => 0,
      onDisconnect: (i) => delays.push(i.delayMs),
    });
    const done = stream[Symbol.asyncIterator]().next();
    await until(() => expect(delays).toEqual([2000]));
    stream.close();
    await done;
  });

  // A hostile or broken server must not set off a reconnection storm: `retry: 0` used to make every delay 0 (and
  // `: connected` resets the attempt count, so the backoff never grew), and so did `Retry-After: 0`; either gave
  // hundreds of connections a second.
  /** The delay of the first reconnection, with jitter at its low end (random() = 0: half the delay ceiling). */
  async function firstDelay(handler: Parameters<typeof server>[0]) {
    const s = await server(handler);
    const delays: number[] = [];
    const stream = streamEvents(transport(s.url), {
      random: () => 0,
      onDisconnect: (i) => delays.push(i.delayMs),
    });
    const done = stream[Symbol.asyncIterator]().next();
    await until(() => expect(delays).toHaveLength(1));
    stream.close();
    await done;
    return { delays, connections: s.connections };
  }

  it.each([
    ['retry: 0', 'retry: 0\n: connected\n\n'],
    ['retry: 5', 'retry: 5\n: connected\n\n'],
  ])('a server `%s` does not shorten the initial delay below 1 s', async (_name, body) => {
    const got = await firstDelay((_req, res) => {
      sseHead(res);
      res.end(body);
    });
    // Half of the 1 s ceiling.
    expect(got).toEqual({ delays: [500], connections: 1 });
  });

  it.each(['0', 'Thu, 01 Jan 1970 00:00:00 GMT'])(
    'a 503 with `Retry-After: %s` backs off as if it had none',
    async (value) => {
      const got = await firstDelay((_req, res) => {
        res.writeHead(503, { 'retry-after': value });
        res.end();
      });
      expect(got).toEqual({ delays: [500], connections: 1 });
    },
  );

  it('drops a connection whose single message outgrows 1 MiB, and reconnects', async () => {
    const s = await server((_req, res, n) => {
      sseHead(res);
      if (n === 1) return void res.write(`: connected\n\ndata: ${'x'.repeat(1_100_000)}`);
      res.write(': connected\n\n' + created('small'));
    });
    const reasons: string[] = [];
    const counted = countingFetch();
    const events = await take(
      streamEvents(transport(s.url, { fetch: counted.fetch }), {
        ...fast,
        onReconnect: (i) => reasons.push(i.reason),
      }),
      1,
    );
    expect(events[0]!.payload.id).toBe('small');
    expect(reasons).toEqual(['stream_too_large']);
    expect(counted.maxOpen).toBe(1);
  });

  it('retries a 200 that is not an event stream instead of parsing it', async () => {
    const s = await server((_req, res, n) => {
      if (n === 1) {
        res.writeHead(200, { 'content-type': 'text/html' });
        return void res.end('<html>login</html>');
      }
      sseHead(res);
      res.write(': connected\n\n' + created('real'));
    });
    const reasons: string[] = [];
    const events = await take(
      streamEvents(transport(s.url), { ...fast, onReconnect: (i) => reasons.push(i.reason) }),
      1,
    );
    expect(events[0]!.payload.id).toBe('real');
    expect(reasons).toEqual(['unexpected_content_type']);
  });
});

describe('streamEvents heartbeat watchdog', () => {
  it('replaces a connection silent for 2.5 heartbeats (62.5 s), not before', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const s = await server((_req, res, n) => {
      sseHead(res);
      if (n === 2) res.write(': connected\n\n' + created('second'));
    });
    const onDisconnect = vi.fn();
    const debug = vi.fn();
    const counted = countingFetch();
    const stream = streamEvents(transport(s.url, { fetch: counted.fetch, logger: { debug } }), {
      onDisconnect,
      random: () => 0,
    });
    const next = stream[Symbol.asyncIterator]().next();
    // Logged just before the first read arms the watchdog, so fake time starts counting from here.
    await until(() => expect(debug).toHaveBeenCalledWith('psp-sdk: event stream connected', { attempt: 1 }));
    await vi.advanceTimersByTimeAsync(62_499);
    expect(onDisconnect).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    await until(() =>
      expect(onDisconnect).toHaveBeenCalledWith(expect.objectContaining({ reason: 'heartbeat_timeout' })),
    );
    await vi.advanceTimersByTimeAsync(1_000);
    expect(((await next).value as SseEvent).payload.id).toBe('second');
    expect(counted.maxOpen).toBe(1);
    stream.close();
  });

  it('pings keep a connection alive, and the interval is an option', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let res1: import('node:http').ServerResponse | undefined;
    const s = await server((_req, res, n) => {
      sseHead(res);
      res.write(': connected\n\n');
      if (n === 1) res1 = res;
    });
    const onDisconnect = vi.fn();
    const stream = streamEvents(transport(s.url), { onDisconnect, heartbeatTimeoutMs: 1_000 });
    const next = stream[Symbol.asyncIterator]().next();
    await s.connected(1);
    for (let i = 0; i < 5; i++) {
      await vi.advanceTimersByTimeAsync(900);
      res1!.write(': ping\n\n');
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setImmediate(r));
    }
    expect(onDisconnect).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1_000);
    await until(() => expect(onDisconnect).toHaveBeenCalledOnce());
    stream.close();
    await next;
  });

  it('a slow consumer is not mistaken for a silent server', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const s = await server((_req, res) => {
      sseHead(res);
      res.write(': connected\n\n' + created('a') + created('b'));
    });
    const onDisconnect = vi.fn();
    const stream = streamEvents(transport(s.url), { onDisconnect, heartbeatTimeoutMs: 1_000 });
    const it = stream[Symbol.asyncIterator]();
    expect(((await it.next()).value as SseEvent).payload.id).toBe('a');
    await vi.advanceTimersByTimeAsync(5_000); // the app takes 5 s over event a
    expect(((await it.next()).value as SseEvent).payload.id).toBe('b');
    expect(onDisconnect).not.toHaveBeenCalled();
    stream.close();
    await it.return?.();
  });
});
