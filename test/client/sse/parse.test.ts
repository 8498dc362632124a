import { describe, expect, it, vi } from 'vitest';
import { eventParser, MAX_MESSAGE } from '../../../src/client/sse/parse.js';

// The parse step alone: bytes in, envelopes out, no connection and no timer.

const bytes = (text: string) => new TextEncoder().encode(text);
const frame = (kind: string, payload: object) =>
  `event: ${kind}\ndata: ${JSON.stringify({ kind, payload, at: '2026-05-06T10:00:00Z' })}\n\n`;

describe('eventParser', () => {
  it('returns each envelope once its message is complete, across chunks split inside a character', () => {
    const p = eventParser();
    const all = bytes(
      `: connected\n\n${frame('payment.created', { id: 'p1', note: 'Возврат ✓' })}: ping\n\n${frame(
        'payment.status_changed',
        { id: 'p1', status: 'succeeded' },
      ).replace(/\n/g, '\r\n')}`,
    );
    const got = [];
    for (let i = 0; i < all.length; i += 5) got.push(...p.feed(all.subarray(i, i + 5)));
    expect(got).toEqual([
      { kind: 'payment.created', payload: { id: 'p1', note: 'Возврат ✓' }, at: '2026-05-06T10:00:00Z' },
      {
        kind: 'payment.status_changed',
        payload: { id: 'p1', status: 'succeeded' },
        at: '2026-05-06T10:00:00Z',
      },
    ]);
    expect(p.replaced).toBe(false);
    expect(p.overflow).toBe(false);
    expect(p.retryMs).toBeUndefined();
  });

  it('a message still open yields nothing until its blank line', () => {
    const p = eventParser();
    const text = frame('payout.created', { id: 'po1' });
    expect(p.feed(bytes(text.slice(0, -1)))).toEqual([]);
    expect(p.feed(bytes('\n'))).toHaveLength(1);
  });

  it('skips a message that is no envelope, logging its name and size but not its data', () => {
    const warn = vi.fn();
    const p = eventParser({ warn });
    const got = p.feed(bytes('event: payment.created\ndata: {"secret":1\n\ndata: {"payload":[]}\n\n'));
    expect(got).toEqual([]);
    expect(warn.mock.calls).toEqual([
      ['psp-sdk: skipped a malformed event', { event: 'payment.created', bytes: 11 }],
      ['psp-sdk: skipped a malformed event', { event: undefined, bytes: 14 }],
    ]);
    expect(JSON.stringify(warn.mock.calls)).not.toContain('secret');
  });

  it('notes `: replaced`, and the events before it still come', () => {
    const p = eventParser();
    expect(p.feed(bytes(`${frame('payment.created', { id: 'p' })}: replaced\n\n`))).toHaveLength(1);
    expect(p.replaced).toBe(true);
  });

  it("keeps the server's retry: field, never below 1 s", () => {
    const p = eventParser();
    p.feed(bytes('retry: 4000\n\n'));
    expect(p.retryMs).toBe(4000);
    p.feed(bytes('retry: 0\n\n'));
    expect(p.retryMs).toBe(1000);
  });

  it('notes a message that outgrows the cap', () => {
    const p = eventParser();
    p.feed(bytes(`data: ${'x'.repeat(MAX_MESSAGE + 10)}`));
    expect(p.overflow).toBe(true);
  });
});
