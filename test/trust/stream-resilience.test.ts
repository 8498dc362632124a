import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { PspClient, type SseEvent } from '../../src/index.js';
import { type RunningReference, startReference } from '../../src/reference/index.js';
import { countingFetch } from '../support/sse-server.js';

/**
 * The event stream through 10 restarts and 10 silent stalls of the server. A TCP relay in front of one
 * reference plays the server's failures: a restart kills every connection and refuses new ones until it comes
 * back on the same port; a stall keeps the connection open but lets no byte through (the heartbeat watchdog must
 * notice). After each failure the stream must come back within its backoff, deliver new events, and it must
 * never hold two connections at once.
 *
 * No wall clock decides anything: the client's timers (watchdog, backoff) are fake and move only when the test
 * moves them, the reference runs on its manual clock, and waits count event-loop turns. "Never two connections"
 * is counted where it is exact, on the client's side of its fetch (the relay's count of sockets lags: a socket
 * counts until its close event, which can land after the client's next connection).
 */

interface Relay {
  port: number;
  live: number;
  maxLive: number;
  accepted: number;
  restart(): Promise<void>;
  stall(): void;
  close(): Promise<void>;
}

async function startRelay(upstreamPort: number): Promise<Relay> {
  const sockets = new Set<net.Socket>();
  let stalled = new WeakSet<net.Socket>();
  const relay: Relay = {
    port: 0,
    live: 0,
    maxLive: 0,
    accepted: 0,
    restart: async () => {
      await new Promise<void>((r) => {
        server.close(() => r());
        for (const s of sockets) s.destroy();
      });
      // Down: the client's next attempt is refused, as when a process is restarting.
      await new Promise<void>((r) => server.listen(relay.port, '127.0.0.1', r));
    },
    stall: () => {
      for (const s of sockets) stalled.add(s);
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
  const server = net.createServer((client) => {
    relay.accepted++;
    relay.live++;
    relay.maxLive = Math.max(relay.maxLive, relay.live);
    sockets.add(client);
    const upstream = net.connect(upstreamPort, '127.0.0.1');
    upstream.on('data', (d) => {
      if (!stalled.has(client)) client.write(d);
    });
    client.on('data', (d) => upstream.write(d));
    const end = () => {
      if (sockets.delete(client)) relay.live--;
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  relay.port = (server.address() as net.AddressInfo).port;
  stalled = new WeakSet();
  return relay;
}

let ref: RunningReference;
let relay: Relay;

beforeAll(async () => {
  ref = await startReference({ port: 0, clock: 'manual' });
  relay = await startRelay(Number(new URL(ref.base_url).port));
});
afterEach(() => {
  vi.useRealTimers();
});
afterAll(async () => {
  await relay?.close();
  await ref?.close();
});

const WATCHDOG_MS = 1_000;

describe('event stream resilience', () => {
  it('survives 10 restarts and 10 silent stalls, reconnecting within its backoff, one connection at a time', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const counted = countingFetch();
    let connects = 0;
    const logger = {
      debug: (message: string) => {
        if (message === 'psp-sdk: event stream connected') connects++;
      },
    };
    const base = `http://127.0.0.1:${relay.port}`;
    const client = new PspClient({
      apiKey: ref.api_key,
      baseUrl: base,
      fetch: counted.fetch,
      logger,
      logLevel: 'debug',
    });
    const direct = new PspClient({ apiKey: ref.api_key, baseUrl: ref.base_url });

    const disconnects: Array<{ reason: string; delayMs: number }> = [];
    const reconnects: string[] = [];
    const seen = new Set<string>();
    const controller = new AbortController();
    const stream = client.events.stream({
      signal: controller.signal,
      heartbeatTimeoutMs: WATCHDOG_MS,
      backoff: { initialDelayMs: 20, maxDelayMs: 200 },
      onDisconnect: (d) => disconnects.push({ reason: d.reason, delayMs: d.delayMs }),
      onReconnect: (r) => reconnects.push(r.reason),
    });
    const reader = (async () => {
      for await (const ev of stream as AsyncIterable<SseEvent>) {
        if (ev.kind === 'payment.created') seen.add(ev.payload.id);
      }
    })();

    // Fake time moves only to let a reported backoff pass, so the watchdog never fires on a live connection.
    // Zero-delay timers still run (time stands still for them): @hono/node-server yields one before it writes
    // a streamed answer's head.
    let waited = 0;
    const drive = async (ok: () => boolean, what: string) => {
      for (let turn = 0; turn < 1_000_000; turn++) {
        if (ok()) return;
        const next = disconnects[waited];
        if (next) {
          waited++;
          await vi.advanceTimersByTimeAsync(next.delayMs);
        } else {
          await new Promise((r) => setImmediate(r));
          await vi.advanceTimersByTimeAsync(0);
        }
      }
      throw new Error(`never happened: ${what}`);
    };

    /** Connection `n` is open (so its stream is on the server) and a payment made now reaches it. */
    let expected = 0;
    const flows = async () => {
      expected++;
      await drive(() => connects === expected, `connection ${expected}`);
      const { id } = (await direct.payments.create({ amount: 1_000 })).payment;
      await drive(() => seen.has(id), `payment ${id} on the stream`);
    };

    await flows();
    for (let i = 0; i < 10; i++) {
      await relay.restart();
      await flows();
    }
    for (let i = 0; i < 10; i++) {
      relay.stall();
      const before = disconnects.length;
      // Just short of the watchdog nothing happens; at it, the silent connection is dropped.
      await vi.advanceTimersByTimeAsync(WATCHDOG_MS - 1);
      for (let turn = 0; turn < 100; turn++) await new Promise((r) => setImmediate(r));
      expect(disconnects).toHaveLength(before);
      await vi.advanceTimersByTimeAsync(1);
      await drive(() => disconnects.length > before, 'the watchdog');
      await flows();
    }
    controller.abort();
    await reader;

    const reasons = disconnects.map((d) => d.reason);
    const maxDelay = Math.max(...disconnects.map((d) => d.delayMs));
    console.log(
      `[stream] restarts=10 stalls=10 disconnects=${disconnects.length} reconnects=${reconnects.length}` +
        ` max-backoff-ms=${maxDelay} client-connections=${counted.opened} max-open=${counted.maxOpen}` +
        ` relay-sockets=${relay.accepted} relay-max-live=${relay.maxLive}`,
    );
    // Each restart is one break, each stall one watchdog trip: nothing else dropped the stream.
    expect(reasons.slice(0, 10).every((r) => r === 'network_error' || r === 'stream_ended')).toBe(true);
    expect(reasons.slice(10)).toEqual(Array(10).fill('heartbeat_timeout'));
    expect(reconnects).toEqual(reasons);
    expect(connects).toBe(21);
    expect(counted.opened).toBe(21);
    // Every scheduled wait stayed within the configured backoff ceiling.
    expect(maxDelay).toBeLessThanOrEqual(200);
    // Never two connections: the next one opened only after the client let go of the last.
    expect(counted.maxOpen).toBe(1);
    expect(counted.open).toBe(0);
  }, 120_000);
});
