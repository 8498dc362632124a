import { describe, expect, it, vi } from 'vitest';
import { AuthenticationError, IpNotAllowedError, PspConnectionError } from '../../src/client/errors.js';
import { streamEvents } from '../../src/client/event-stream.js';
import { frame, serversClosedAfterEach, sseHead, take, transport } from '../support/sse-server.js';

const server = serversClosedAfterEach();

const fast = { backoff: { initialDelayMs: 1, maxDelayMs: 5 } };

describe('streamEvents framing', () => {
  it('yields typed envelopes across chunk boundaries, CRLF lines and comments', async () => {
    const s = await server((_req, res) => {
      sseHead(res);
      const text =
        ': connected\n\n' +
        frame('payment.created', { id: 'p1', status: 'pending', amount: 1000 }) +
        ': ping\n\n' +
        frame('payment.status_changed', { id: 'p1', status: 'succeeded' }).replace(/\n/g, '\r\n') +
        frame('refund.created', { id: 'r1', payment_id: 'p1', status: 'succeeded', note: 'Возврат ✓' });
      // Split at every 7th byte, inside multi-byte characters too.
      const bytes = Buffer.from(text);
      for (let i = 0; i < bytes.length; i += 7) res.write(bytes.subarray(i, i + 7));
    });
    const events = await take(streamEvents(transport(s.url)), 3);
    expect(events).toEqual([
      {
        kind: 'payment.created',
        payload: { id: 'p1', status: 'pending', amount: 1000 },
        at: '2025-11-21T04:40:00Z',
      },
      {
        kind: 'payment.status_changed',
        payload: { id: 'p1', status: 'succeeded' },
        at: '2025-11-21T04:40:00Z',
      },
      {
        kind: 'refund.created',
        payload: { id: 'r1', payment_id: 'p1', status: 'succeeded', note: 'Возврат ✓' },
        at: '2025-11-21T04:40:00Z',
      },
    ]);
    const ev = events[0]!;
    if (ev.kind === 'payment.created') expect(ev.payload.amount).toBe(1000);
    expect(s.requests[0]!.headers.accept).toBe('text/event-stream');
    expect(s.requests[0]!.headers.authorization).toBe('Bearer sk_test_abcdef_secret');
  });

  it('skips and logs a malformed message, and passes unknown kinds through', async () => {
    const s = await server((_req, res) => {
      sseHead(res);
      res.write(': connected\n\n');
      res.write('event: payment.created\ndata: {not json\n\n');
      res.write('event: payment.created\ndata: {"kind":"payment.created","payload":[],"at":"x"}\n\n');
      res.write('data: {"payload":{"id":"x"}}\n\n');
      res.write(frame('dispute.opened', { id: 'd1' }));
      res.write('event: payout.created\ndata: {"payload":{"id":"po1","status":"pending"},"at":"t"}\n\n');
    });
    const warn = vi.fn();
    const events = await take(streamEvents(transport(s.url, { logger: { warn } })), 2);
    expect(events.map((e) => e.kind)).toEqual(['dispute.opened', 'payout.created']);
    expect(events[1]!.payload).toEqual({ id: 'po1', status: 'pending' });
    expect(warn).toHaveBeenCalledTimes(3);
    expect(warn.mock.calls[0]![0]).toMatch(/malformed/);
  });
});

describe('streamEvents ending', () => {
  it('stops on ": replaced" without reconnecting', async () => {
    const s = await server((_req, res) => {
      sseHead(res);
      res.write(': connected\n\n' + frame('payment.created', { id: 'p1', status: 'pending', amount: 1 }));
      res.write(': replaced\n\n');
      res.end();
    });
    const onEnd = vi.fn();
    const onReconnect = vi.fn();
    const events = await take(streamEvents(transport(s.url), { ...fast, onEnd, onReconnect }));
    expect(events).toHaveLength(1);
    expect(onEnd).toHaveBeenCalledWith({ reason: 'replaced' });
    expect(onReconnect).not.toHaveBeenCalled();
    expect(s.connections).toBe(1);
  });

  it('abort ends the iteration cleanly and closes the connection', async () => {
    const s = await server((_req, res) => {
      sseHead(res);
      res.write(': connected\n\n' + frame('payment.created', { id: 'p1', status: 'pending', amount: 1 }));
    });
    const ac = new AbortController();
    const onEnd = vi.fn();
    const seen: string[] = [];
    for await (const ev of streamEvents(transport(s.url), { signal: ac.signal, onEnd })) {
      seen.push(ev.kind);
      ac.abort();
    }
    expect(seen).toEqual(['payment.created']);
    expect(onEnd).toHaveBeenCalledWith({ reason: 'aborted' });
    await s.drained();
    expect(s.open).toBe(0);
  });

  it('abort while waiting for bytes ends the iteration', async () => {
    const s = await server((_req, res) => {
      sseHead(res);
      res.write(': connected\n\n');
    });
    const ac = new AbortController();
    const done = take(streamEvents(transport(s.url), { signal: ac.signal }));
    await s.connected(1);
    ac.abort();
    expect(await done).toEqual([]);
    await s.drained();
  });

  it('close() ends it, and a signal aborted up front never connects', async () => {
    const s = await server((_req, res) => {
      sseHead(res);
      res.write(': connected\n\n');
    });
    const stream = streamEvents(transport(s.url));
    const done = take(stream);
    await s.connected(1);
    stream.close();
    expect(await done).toEqual([]);
    expect(await take(streamEvents(transport(s.url), { signal: AbortSignal.abort() }))).toEqual([]);
    expect(s.connections).toBe(1);
  });

  it('can be iterated once', async () => {
    const stream = streamEvents(transport('http://127.0.0.1:9/none'), { signal: AbortSignal.abort() });
    stream[Symbol.asyncIterator]();
    expect(() => stream[Symbol.asyncIterator]()).toThrow(/already being iterated/);
  });
});

describe('streamEvents errors', () => {
  it('401 throws the typed AuthenticationError and does not retry', async () => {
    const s = await server((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'unauthorized', message: 'bad key' } }));
    });
    const err = await take(streamEvents(transport(s.url), fast)).catch((e) => e);
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err.status).toBe(401);
    expect(s.connections).toBe(1);
    expect(JSON.stringify(err)).not.toContain('sk_test_abcdef_secret');
  });

  it('403 throws the error for its code', async () => {
    const s = await server((_req, res) => {
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'ip_not_allowed', message: 'no' } }));
    });
    const err = await take(streamEvents(transport(s.url), fast)).catch((e) => e);
    expect(err).toBeInstanceOf(IpNotAllowedError);
    expect(err.code).toBe('ip_not_allowed');
  });

  it('gives up with PspConnectionError after maxRetries', async () => {
    const s = await server((_req, res) => {
      res.writeHead(503);
      res.end();
    });
    const onDisconnect = vi.fn();
    const err = await take(streamEvents(transport(s.url), { ...fast, maxRetries: 2, onDisconnect })).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(PspConnectionError);
    expect(s.connections).toBe(3);
    expect(onDisconnect).toHaveBeenCalledTimes(2);
    expect(onDisconnect.mock.calls[0]![0]).toMatchObject({ reason: 'http_503', attempt: 1 });
  });
});

describe('streamEvents hygiene', () => {
  it('never logs the API key, and a throwing app callback does not kill the stream', async () => {
    const s = await server((_req, res, n) => {
      if (n === 1) {
        res.writeHead(500);
        return void res.end();
      }
      sseHead(res);
      res.write(
        ': connected\n\ndata: nope\n\n' + frame('payment.created', { id: 'p', status: 'pending', amount: 1 }),
      );
    });
    const lines: unknown[] = [];
    const logger = {
      debug: (...a: unknown[]) => lines.push(a),
      info: (...a: unknown[]) => lines.push(a),
      warn: (...a: unknown[]) => lines.push(a),
      error: (...a: unknown[]) => lines.push(a),
    };
    const boom = () => {
      throw new Error('app bug');
    };
    const events = await take(
      streamEvents(transport(s.url, { logger }), {
        backoff: { initialDelayMs: 1 },
        onDisconnect: boom,
        onReconnect: boom,
      }),
      1,
    );
    expect(events[0]!.payload.id).toBe('p');
    expect(lines.length).toBeGreaterThanOrEqual(4);
    expect(JSON.stringify(lines)).not.toContain('sk_test_abcdef_secret');
  });
});
