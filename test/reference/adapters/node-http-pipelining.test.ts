import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { listenNode } from '../../../src/reference/adapters/node-http.js';
import { MAX_UNANSWERED_PER_SOCKET } from '../../../src/reference/adapters/pipelining.js';
import { createReference } from '../../../src/reference/index.js';

// Issue 32 F3: 2,000 pipelined GET /openapi.json on one socket that never reads held about 150 MiB of answers,
// because node parsed the whole chunk and the app answered every request before the first answer could leave.

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/**
 * Reads answers off `socket` as they come, in order: the status of each (every answer here carries a
 * Content-Length). Only the unparsed rest is kept, so a long run of answers costs no quadratic copying.
 */
function answerReader(socket: Socket) {
  const statuses: number[] = [];
  let rest: Buffer = Buffer.alloc(0);
  let wanted = 0;
  let onEnough: () => void = () => {};
  socket.on('data', (chunk: Buffer) => {
    rest = rest.length === 0 ? chunk : Buffer.concat([rest, chunk]);
    for (;;) {
      const end = rest.indexOf('\r\n\r\n');
      if (end < 0) break;
      const head = rest.subarray(0, end).toString('latin1');
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1]);
      if (end + 4 + length > rest.length) break;
      statuses.push(Number(head.split(' ')[1]));
      rest = rest.subarray(end + 4 + length);
    }
    if (statuses.length >= wanted) onEnough();
  });
  return {
    statuses,
    /** Resolves once `n` answers have been read. */
    until(n: number): Promise<void> {
      wanted = n;
      return statuses.length >= n ? Promise.resolve() : new Promise((resolve) => (onEnough = resolve));
    },
  };
}

/** Resolves after `n` turns of the event loop (no wall clock). */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('node adapter: pipelining (issue 32 F3)', () => {
  it('answers a few pipelined requests of a socket that does not read at a time, then every one in order', async () => {
    const ref = createReference();
    let started = 0;
    let flushed = 0;
    let mostUnflushed = 0;
    const server = await listenNode((request, info) => {
      started += 1;
      mostUnflushed = Math.max(mostUnflushed, started - flushed);
      return ref.fetch(request, info);
    });
    cleanup.push(
      () => ref.close(),
      () => server.close(),
    );
    // Counts the answers that have left for the socket (node emits `finish` once it has handed them over).
    server.server.on('request', (_req, res) => res.once('finish', () => (flushed += 1)));

    const total = 1000;
    // Every tenth request is for no route (404): the order of the answers shows in their statuses.
    const paths = Array.from({ length: total }, (_, i) => (i % 10 === 9 ? '/nowhere' : '/openapi.json'));
    const socket: Socket = connect(server.port, '127.0.0.1');
    cleanup.push(() => void socket.destroy());
    socket.pause(); // the client does not read
    const reader = answerReader(socket);
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(paths.map((p) => `GET ${p} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`).join(''));
    // The server works on what it can while nobody reads: a few requests, not all of them.
    while (started <= MAX_UNANSWERED_PER_SOCKET) await turns(1);
    await turns(50);

    // The client reads: every answer comes, in the order asked.
    socket.resume();
    await reader.until(total);
    expect(reader.statuses).toEqual(paths.map((p) => (p === '/nowhere' ? 404 : 200)));
    expect(started).toBe(total);
    // At any time, at most the bound's requests were answered and not yet handed to the socket (+1: the next one
    // starts in the same `finish` this test counts it in).
    expect(mostUnflushed).toBeLessThanOrEqual(MAX_UNANSWERED_PER_SOCKET + 1);
  });
});
