// Issue 23 #15: `: connected` used to reset the failure count, so a server that greets and then fails kept the
// stream reconnecting for ever, however small `maxRetries`. Only a stream that really worked (an event, or a
// connection that stayed open past the stable interval) starts counting from zero again.
import { describe, expect, it, vi } from 'vitest';
import { PspConnectionError } from '../../src/client/errors.js';
import { streamEvents } from '../../src/client/event-stream.js';
import { frame, serversClosedAfterEach, sseHead, take, transport, until } from '../support/sse-server.js';

const server = serversClosedAfterEach();

const fast = { backoff: { initialDelayMs: 1, maxDelayMs: 5 } };

describe('maxRetries against a server that greets and then fails', () => {
  it('gives up after maxRetries when every connection sends `: connected` and drops', async () => {
    const s = await server((_req, res) => {
      sseHead(res);
      res.end(': connected\n\n');
    });
    const attempts: number[] = [];
    const stream = streamEvents(transport(s.url), {
      ...fast,
      maxRetries: 3,
      // Bounded either way: without the fix the attempt count never grows past 1, and the test ends the stream
      // itself after 20 reconnections instead of hanging.
      onDisconnect: ({ attempt }) => {
        attempts.push(attempt);
        if (attempts.length >= 20) stream.close();
      },
    });
    const outcome = await take(stream).catch((e: unknown) => e);
    expect(outcome).toBeInstanceOf(PspConnectionError);
    expect((outcome as Error).message).toMatch(/gave up after 4 failed attempts \(stream_ended\)/);
    expect(attempts).toEqual([1, 2, 3]);
    expect(s.connections).toBe(4);
  });

  it('a connection that delivers an event counts as working: the count starts again', async () => {
    const s = await server((_req, res, n) => {
      sseHead(res);
      res.end(
        `: connected\n\n${n === 2 ? frame('payment.created', { id: 'p', status: 'pending', amount: 1 }) : ''}`,
      );
    });
    const attempts: number[] = [];
    const stream = streamEvents(transport(s.url), {
      ...fast,
      maxRetries: 1,
      onDisconnect: ({ attempt }) => attempts.push(attempt),
    });
    const seen: string[] = [];
    const outcome = await (async () => {
      for await (const ev of stream) seen.push(ev.payload.id);
    })().catch((e: unknown) => e);
    expect(outcome).toBeInstanceOf(PspConnectionError);
    expect(seen).toEqual(['p']);
    // 1: the first drop; then the event resets the count, so the second drop is attempt 1 again; the third gives up.
    expect(attempts).toEqual([1, 1]);
    expect(s.connections).toBe(3);
  });

  it('a connection that stays open for the stable interval (30 s) counts as working', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    let ends: Array<() => void> = [];
    const s = await server((_req, res, n) => {
      sseHead(res);
      if (n === 2) {
        res.write(': connected\n\n');
        ends.push(() => res.end());
      } else res.end(': connected\n\n');
    });
    const attempts: number[] = [];
    const stream = streamEvents(transport(s.url), {
      random: () => 0,
      maxRetries: 1,
      heartbeatTimeoutMs: 120_000,
      onDisconnect: ({ attempt }) => attempts.push(attempt),
    });
    const outcome = take(stream).catch((e: unknown) => e);
    await until(() => expect(attempts).toEqual([1]));
    await vi.advanceTimersByTimeAsync(1_000); // the first reconnection delay
    await until(() => expect(ends).toHaveLength(1));
    await vi.advanceTimersByTimeAsync(30_000); // the second connection stays up past the stable interval
    ends[0]!();
    ends = [];
    await until(() => expect(attempts).toEqual([1, 1]));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await outcome).toBeInstanceOf(PspConnectionError);
    expect(s.connections).toBe(3);
  });
});
