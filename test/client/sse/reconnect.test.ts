import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PspConnectionError } from '../../../src/client/errors.js';
import { reconnection, STABLE_MS } from '../../../src/client/sse/reconnect.js';

// The reconnect step alone: no server, no stream; what the stream's loop reports in, the wait it gets back.

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

const half = () => 0.5;

describe('reconnection', () => {
  it('waits with equal jitter, doubling from 1 s up to 30 s, and counts attempts', () => {
    const r = reconnection({ random: half });
    const waits = [];
    for (let i = 0; i < 7; i++) {
      expect(r.attempt).toBe(i + 1);
      waits.push(r.broke('network_error').delayMs);
    }
    expect(waits).toEqual([750, 1500, 3000, 6000, 12000, 22500, 22500]);
  });

  it("the app's backoff wins over the server's retry:, which wins over the default", () => {
    const server = reconnection({ random: () => 0 });
    server.closed(4000);
    expect(server.broke('stream_ended').delayMs).toBe(2000);
    const app = reconnection({ random: () => 0, backoff: { initialDelayMs: 100, maxDelayMs: 150 } });
    app.closed(4000);
    expect([app.broke('stream_ended').delayMs, app.broke('stream_ended').delayMs]).toEqual([50, 75]);
  });

  it('a readable Retry-After is the wait, up to 10 minutes; 0 counts as absent', () => {
    const r = reconnection({ random: () => 0 });
    expect(r.broke('http_503', 3000)).toEqual({ attempt: 1, reason: 'http_503', delayMs: 3000 });
    expect(r.broke('http_503', 86_400_000).delayMs).toBe(600_000);
    expect(r.broke('http_503', 0)).toEqual({ attempt: 3, reason: 'http_503', delayMs: 2000 });
  });

  it('tells a reconnection from the first connection, with its attempts and the reason of the break', () => {
    const r = reconnection();
    expect(r.opened()).toBeUndefined();
    r.closed();
    r.broke('http_502');
    r.broke('network_error');
    expect(r.opened()).toEqual({ attempt: 2, reason: 'network_error' });
    r.closed();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('gives up after maxRetries failures in a row; events, or 30 s up, start the count again', () => {
    const r = reconnection({ maxRetries: 1 });
    r.broke('stream_ended');
    r.opened();
    r.worked();
    r.closed();
    expect(r.attempt).toBe(1);
    r.broke('stream_ended');
    r.opened();
    vi.advanceTimersByTime(STABLE_MS - 1);
    expect(r.attempt).toBe(2);
    vi.advanceTimersByTime(1);
    expect(r.attempt).toBe(1);
    r.closed();
    r.broke('stream_ended');
    expect(() => r.broke('heartbeat_timeout')).toThrow(PspConnectionError);
    expect(() => reconnection({ maxRetries: 0 }).broke('http_500')).toThrow(
      'Event stream gave up after 1 failed attempts (http_500).',
    );
  });

  it('a connection that closes before 30 s does not reset the count later', () => {
    const r = reconnection();
    r.broke('stream_ended');
    r.opened();
    r.closed();
    vi.advanceTimersByTime(STABLE_MS);
    expect(r.attempt).toBe(2);
  });
});
