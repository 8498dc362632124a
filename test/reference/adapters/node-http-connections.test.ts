import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { listenNode, MAX_CONNECTIONS, type NodeServer } from '../../../src/reference/adapters/node-http.js';
import { createReference } from '../../../src/reference/index.js';

// Issue 23 #1 ("there is no connection cap"): every open socket holds memory whether or not it sends a byte, so
// the node adapter bounds the connections open at once; past the bound a new connection is closed at once.

const closers: Array<() => Promise<void>> = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function start(maxConnections?: number): Promise<NodeServer> {
  const ref = createReference();
  const server = await listenNode(
    (request, info) => ref.fetch(request, info),
    maxConnections === undefined ? {} : { maxConnections },
  );
  closers.push(async () => {
    await server.close();
    await ref.close();
  });
  return server;
}

/** A connection that sends nothing; resolves once it is open, and tells when the server closes it. */
function idle(server: NodeServer): Promise<{ socket: Socket; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1');
    sockets.push(socket);
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.once('error', () => {}); // a reset is how the server refuses; `close` follows
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('close', () => reject(new Error('closed before it opened')));
  });
}

/** Sends a GET on a new connection and resolves with the status line, or `closed` when the server drops it. */
function get(server: NodeServer): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(server.port, '127.0.0.1');
    sockets.push(socket);
    let text = '';
    socket.on('data', (d) => {
      text += d.toString();
      if (text.includes('\r\n')) {
        resolve(text.slice(0, text.indexOf('\r\n')));
        socket.destroy();
      }
    });
    socket.once('error', () => {});
    socket.once('close', () => resolve('closed'));
    socket.write('GET /api/v1/public/banks/sbp HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  });
}

describe('the node adapter bounds the connections open at once', () => {
  it('closes a connection past maxConnections at once, and takes new ones when a slot frees', async () => {
    const server = await start(2);
    const first = await idle(server);
    await idle(server);
    // The third connection is accepted by the OS and closed by the server before it can ask anything.
    expect(await get(server)).toBe('closed');
    first.socket.destroy();
    await first.closed;
    // node counts the slot free once the server side has seen the close too: a new one gets an answer.
    let answer = 'closed';
    for (let i = 0; i < 50 && answer === 'closed'; i++) answer = await get(server);
    expect(answer).toBe('HTTP/1.1 401 Unauthorized');
  });

  it('has a default bound', async () => {
    const server = await start();
    expect(server.server.maxConnections).toBe(MAX_CONNECTIONS);
    expect(MAX_CONNECTIONS).toBe(4096);
  });
});
