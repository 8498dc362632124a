import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, vi } from 'vitest';
import type { EventStreamTransport } from '../../src/client/event-stream.js';

export type Script = (req: IncomingMessage, res: ServerResponse, index: number) => void;

/**
 * A scriptable SSE server on 127.0.0.1 that counts connections. How many a client holds at once is counted on
 * the client's side ({@link countingFetch}): the server learns of a closed connection only later.
 */
export interface TestServer {
  url: string;
  port: number;
  connections: number;
  /** Responses not yet closed (a close lands after the client let go, so this lags). */
  open: number;
  requests: IncomingMessage[];
  /** Resolves when connection number `n` (1-based) has arrived. */
  connected(n: number): Promise<void>;
  /** Resolves when no connection is open. */
  drained(): Promise<void>;
  close(): Promise<void>;
}

export async function startServer(script: Script, port = 0): Promise<TestServer> {
  const sockets = new Set<Socket>();
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  let drainWaiters: Array<() => void> = [];
  const state: TestServer = {
    url: '',
    port: 0,
    connections: 0,
    open: 0,
    requests: [],
    connected: (n) =>
      new Promise((resolve) => {
        if (state.connections >= n) resolve();
        else waiters.push({ n, resolve });
      }),
    drained: () =>
      new Promise((resolve) => {
        if (state.open === 0) resolve();
        else drainWaiters.push(resolve);
      }),
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req, res) => {
    state.connections++;
    state.open++;
    state.requests.push(req);
    res.on('close', () => {
      state.open--;
      if (state.open === 0) {
        for (const w of drainWaiters) w();
        drainWaiters = [];
      }
    });
    script(req, res, state.connections);
    for (const w of waiters.filter((w) => state.connections >= w.n)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  state.port = (server.address() as AddressInfo).port;
  state.url = `http://127.0.0.1:${state.port}/api/v1/public/events`;
  return state;
}

export const sseHead = (res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  res.flushHeaders();
};

export const frame = (kind: string, payload: object, at = '2025-11-21T04:40:00Z') =>
  `event: ${kind}\ndata: ${JSON.stringify({ kind, payload, at })}\n\n`;

export function transport(url: string, extra: Partial<EventStreamTransport> = {}): EventStreamTransport {
  return {
    url,
    fetch: globalThis.fetch,
    headers: () => ({ authorization: 'Bearer sk_test_abcdef_secret' }),
    baseUrl: new URL(url).origin,
    ...extra,
  };
}

/** Collects `n` events (or all until the stream ends). */
export async function take<T>(it: AsyncIterable<T>, n = Number.POSITIVE_INFINITY): Promise<T[]> {
  const out: T[] = [];
  if (n <= 0) return out;
  for await (const ev of it) {
    out.push(ev);
    if (out.length >= n) break;
  }
  return out;
}

/**
 * Waits, in real event-loop turns (setImmediate is never faked here), until `check` stops throwing. Unlike
 * vi.waitFor it does not move fake time, so timer-driven assertions stay exact. After the first thousand turns
 * (what settles in this process settles within them) it checks every 5 ms of real time, through node:timers,
 * which fake timers leave alone: a wait for another process or a lease to run out no longer spins a core the
 * other process needs. Bounded by the test's timeout; `turns` bounds the checks.
 */
export async function until(check: () => void, turns = 1_000_000): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      check();
      return;
    } catch (e) {
      if (i >= turns) throw e;
      if (i < 1000) await new Promise((r) => setImmediate(r));
      else await sleep(5);
    }
  }
}

/** What {@link countingFetch} saw: connections the client held at once, exactly as the client holds them. */
export interface FetchCount {
  fetch: typeof fetch;
  /** Calls made. */
  opened: number;
  /** Calls in flight or with a body not yet ended, cancelled or failed. */
  open: number;
  /** The most `open` ever was. */
  maxOpen: number;
}

/**
 * Wraps `inner` to count the connections its caller holds: one from the call until the call fails or the answer's
 * body ends, errors or is cancelled. Unlike a server's count (its `close` event can land after the client's next
 * request), this is exact: the client's own cancel is what ends a connection here.
 *
 * @example
 * const counted = countingFetch();
 * streamEvents(transport(url, { fetch: counted.fetch }));
 * expect(counted.maxOpen).toBe(1);
 */
export function countingFetch(inner: typeof fetch = globalThis.fetch): FetchCount {
  const count: FetchCount = {
    opened: 0,
    open: 0,
    maxOpen: 0,
    fetch: async (input, init) => {
      count.opened++;
      count.open++;
      count.maxOpen = Math.max(count.maxOpen, count.open);
      let held = true;
      const letGo = () => {
        if (held) count.open--;
        held = false;
      };
      let res: Response;
      try {
        res = await inner(input, init);
      } catch (err) {
        letGo();
        throw err;
      }
      if (!res.body) {
        letGo();
        return res;
      }
      const reader = res.body.getReader();
      const body = new ReadableStream<Uint8Array>(
        {
          async pull(controller) {
            try {
              const { done, value } = await reader.read();
              if (done) {
                letGo();
                controller.close();
              } else controller.enqueue(value);
            } catch (err) {
              letGo();
              controller.error(err);
            }
          },
          cancel(reason) {
            letGo();
            return reader.cancel(reason);
          },
        },
        { highWaterMark: 0 },
      );
      return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
    },
  };
  return count;
}

/**
 * For a test file: a `startServer` whose servers are closed after each test (real timers restored first), so no
 * test leaves a socket or a fake clock behind.
 */
export function serversClosedAfterEach(): (...args: Parameters<typeof startServer>) => Promise<TestServer> {
  const servers: TestServer[] = [];
  afterEach(async () => {
    vi.useRealTimers();
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  return async (...args) => {
    const s = await startServer(...args);
    servers.push(s);
    return s;
  };
}
