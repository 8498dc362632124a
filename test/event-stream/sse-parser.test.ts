import { createParser } from 'eventsource-parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sseParser } from '../../src/client/sse/parser.js';

// The stream used eventsource-parser 3.1 until sseParser replaced it: the stream must hear the same calls, at the
// same chunk, for any input. One log line per call: [chunk index, kind, ...args].
type Log = unknown[][];

function viaLibrary(chunks: string[], max: number): Log {
  const log: Log = [];
  let i = 0;
  let over = false;
  const p = createParser({
    maxBufferSize: max,
    onEvent: (m) => log.push([i, 'event', m.event, m.data]),
    onComment: (c) => log.push([i, 'comment', c]),
    onRetry: (ms) => log.push([i, 'retry', ms]),
    onError: (e) => {
      if (e.type === 'max-buffer-size-exceeded') {
        over = true;
        log.push([i, 'overflow']);
      }
    },
  });
  // The stream stops reading at an overflow (the library would throw on the next feed).
  for (; i < chunks.length && !over; i++) p.feed(chunks[i] as string);
  return log;
}

function viaOwn(chunks: string[], max: number): Log {
  const log: Log = [];
  let i = 0;
  let over = false;
  const feed = sseParser(max, {
    event: (type, data) => log.push([i, 'event', type, data]),
    comment: (c) => log.push([i, 'comment', c]),
    retry: (ms) => log.push([i, 'retry', ms]),
    overflow: () => {
      over = true;
      log.push([i, 'overflow']);
    },
  });
  for (; i < chunks.length && !over; i++) feed(chunks[i] as string);
  return log;
}

// Pieces that make up lines: every field the format knows, near misses, separators and all three line ends.
const piece = fc.oneof(
  fc.constantFrom(
    'data',
    'data:',
    'data: ',
    'event',
    'event:',
    'event: ',
    'id:',
    'id: 7',
    'retry:',
    'retry: ',
    '250',
    '1x',
    ':',
    ': ',
    'connected',
    'replaced',
    'dat',
    'Data:',
    'eventx:',
    ' ',
    '\0',
    '\n',
    '\n',
    '\r',
    '\r\n',
    '\n\n',
    '\r\r',
    '\xef\xbb\xbf',
    '{"kind":"payment.created"}',
    'Возврат ✓',
  ),
  fc.string({ maxLength: 6 }),
);

/** A text cut into chunks at random points, empty chunks included. */
const chunked = fc
  .tuple(fc.boolean(), fc.array(piece, { maxLength: 40 }), fc.array(fc.nat(), { maxLength: 8 }))
  .map(([bom, parts, cuts]) => {
    const text = (bom ? '\xef\xbb\xbf' : '') + parts.join('');
    const at = cuts.map((c) => (text.length === 0 ? 0 : c % (text.length + 1))).sort((a, b) => a - b);
    const chunks: string[] = [];
    let from = 0;
    for (const c of [...at, text.length]) {
      chunks.push(text.slice(from, c));
      from = c;
    }
    return chunks;
  });

describe('sseParser', () => {
  it('reports what eventsource-parser reports, chunk for chunk, on random streams', () => {
    fc.assert(
      fc.property(chunked, fc.oneof(fc.constant(1 << 20), fc.integer({ min: 0, max: 40 })), (chunks, max) => {
        expect(viaOwn(chunks, max)).toEqual(viaLibrary(chunks, max));
      }),
      { numRuns: 3000 },
    );
  });

  it('parses events, comments and retry over every line end, and drops a first-chunk BOM', () => {
    const chunks = [
      '\xef\xbb\xbf: connected\r',
      '\nevent: a\rdata: 1\r\ndata:2\n\nretry: 300\n',
      'id: 1\n:x\n\n',
    ];
    expect(viaOwn(chunks, 1 << 20)).toEqual([
      [1, 'comment', 'connected'],
      [1, 'event', 'a', '1\n2'],
      [1, 'retry', 300],
      [2, 'comment', 'x'],
    ]);
  });

  it('holds a line that a chunk ends with a CR until a chunk brings a line break', () => {
    expect(viaOwn(['data: a\n\r', 'b', '\n'], 1 << 20)).toEqual([[2, 'event', undefined, 'a']]);
  });

  it('reports an overflow once, after the events of that chunk, and ignores input after it', () => {
    expect(viaOwn(['data: 1\n\ndata: 0123456789', 'data: 1\n\n'], 8)).toEqual([
      [0, 'event', undefined, '1'],
      [0, 'overflow'],
    ]);
  });
});
