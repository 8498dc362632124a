import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PspClient, type SseEvent } from '../../src/index.js';
import { type RunningReference, startReference } from '../../src/reference/index.js';

/**
 * The event stream through 10 restarts and 10 silent stalls of the server. A TCP relay in front of one
 * reference plays the server's failures: a restart kills every connection and refuses new ones until it comes
 * back on the same port; a stall keeps the connection open but lets no byte through (the heartbeat watchdog must
 * notice). After each failure the stream must come back within its backoff, deliver new events, and it must
 * never hold two connections at once.
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
  ref = await startReference({ port: 0 });
  relay = await startRelay(Number(new URL(ref.base_url).port));
});
afterAll(async () => {
  await relay?.close();
  await ref?.close();
});

describe('event stream resilience', () => {
  it('survives 10 restarts and 10 silent stalls, reconnecting within its backoff, one connection at a time', async () => {
    const base = `http://127.0.0.1:${relay.port}`;
    const client = new PspClient({ apiKey: ref.api_key, baseUrl: base });
    const direct = new PspClient({ apiKey: ref.api_key, baseUrl: ref.base_url });

    const disconnects: Array<{ reason: string; delayMs: number; at: number }> = [];
    const reconnects: Array<{ reason: string; at: number }> = [];
    const seen = new Set<string>();
    const controller = new AbortController();
    const stream = client.events.stream({
      signal: controller.signal,
      heartbeatTimeoutMs: 1_000,
      backoff: { initialDelayMs: 20, maxDelayMs: 200 },
      onDisconnect: (d) => disconnects.push({ reason: d.reason, delayMs: d.delayMs, at: performance.now() }),
      onReconnect: (r) => reconnects.push({ reason: r.reason, at: performance.now() }),
    });
    const reader = (async () => {
      for await (const ev of stream as AsyncIterable<SseEvent>) {
        if (ev.kind === 'payment.created') seen.add(ev.payload.id);
      }
    })();

    /** A payment made now must reach the stream: proof that the connection is back. */
    const flows = async () => {
      let id = '';
      await expect
        .poll(
          async () => {
            if (!id || !seen.has(id)) id = (await direct.payments.create({ amount: 1_000 })).payment.id;
            return seen.has(id);
          },
          { timeout: 20_000, interval: 100 },
        )
        .toBe(true);
    };

    await flows();
    for (let i = 0; i < 10; i++) {
      await relay.restart();
      await flows();
    }
    for (let i = 0; i < 10; i++) {
      // A loaded machine may also trip the watchdog on its own; what must hold is that each stall is noticed.
      const before = disconnects.filter((d) => d.reason === 'heartbeat_timeout').length;
      relay.stall();
      await expect
        .poll(() => disconnects.filter((d) => d.reason === 'heartbeat_timeout').length, { timeout: 15_000 })
        .toBeGreaterThan(before);
      await flows();
    }
    controller.abort();
    await reader;

    const stalls = disconnects.filter((d) => d.reason === 'heartbeat_timeout').length;
    const breaks = disconnects.length - stalls;
    const maxDelay = Math.max(...disconnects.map((d) => d.delayMs));
    console.log(
      `[stream] restarts=10 stalls=10 disconnects=${disconnects.length} (breaks=${breaks} watchdog=${stalls})` +
        ` reconnects=${reconnects.length} max-backoff-ms=${maxDelay} connections=${relay.accepted} max-concurrent=${relay.maxLive}`,
    );
    expect(stalls).toBeGreaterThanOrEqual(10);
    expect(breaks).toBeGreaterThanOrEqual(10);
    expect(reconnects.length).toBeGreaterThanOrEqual(20);
    // Every scheduled wait stayed within the configured backoff ceiling.
    expect(maxDelay).toBeLessThanOrEqual(200);
    expect(relay.maxLive).toBe(1);
  }, 120_000);
});
