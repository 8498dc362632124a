import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type ListenOptions,
  listenNode,
  type NodeServer,
} from '../../../src/reference/adapters/node-http.js';
import { createReference, type Reference } from '../../../src/reference/index.js';
import type { Answer } from './raw-http.js';

// Issue 23 #1 and #9: the node adapter reads a body only after section 5 (and never for an unknown route), cuts a
// slow one, bounds the bytes of bodies held at once, and reads each route's body with that route's own cap.

const running: Array<() => Promise<void>> = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(running.splice(0).map((close) => close()));
});

type Started = Reference & { server: NodeServer; base_url: string };

/** The reference behind the node adapter, as startReference serves it, with the adapter's own handle. */
async function start(options: ListenOptions = {}): Promise<Started> {
  const ref = createReference();
  const server = await listenNode((request, info) => ref.fetch(request, info), options);
  running.push(async () => {
    await ref.close();
    await server.close();
  });
  return Object.assign(Object.create(ref) as Reference, ref, { server, base_url: server.url });
}

/**
 * Sends `head` and the first `body` bytes on a connection that stays open (a stalled upload), and resolves with the
 * answer as soon as it is whole (its Content-Length), or when the server closes the connection.
 */
function stalled(ref: Started, head: string, body: string | Uint8Array = ''): Promise<Answer> {
  const url = new URL(ref.base_url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), '127.0.0.1');
    sockets.push(socket);
    let buffered = Buffer.alloc(0);
    let done = false;
    const finish = () => {
      const text = buffered.toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      if (split < 0) return false;
      const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      const rest = buffered.subarray(Buffer.byteLength(text.slice(0, split + 4)));
      if (headers['content-length'] !== undefined && rest.length < Number(headers['content-length']))
        return false;
      done = true;
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.toString('utf8') });
      return true;
    };
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (!done) finish();
    });
    socket.on('error', (e) => {
      if (!done) reject(e);
    });
    socket.on('close', () => {
      if (!done && !finish()) reject(new Error('the server closed without an answer'));
    });
    socket.write(`${head}\r\nHost: 127.0.0.1\r\n\r\n`);
    if (body.length > 0) socket.write(body);
  });
}

const errorOf = (a: Answer) => (JSON.parse(a.body) as { error: { code: string; message: string } }).error;

describe('node adapter: no body is read before section 5', () => {
  it('answers an unauthenticated POST whose body never comes with 401, holding none of it', async () => {
    const ref = await start();
    const answer = await stalled(
      ref,
      'POST /api/v1/public/payments HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 1048576',
      '{"amount":',
    );
    expect(answer.status).toBe(401);
    expect(errorOf(answer).code).toBe('unauthorized');
    expect(ref.server.bodyBytesInFlight).toBe(0);
  });

  it.each([
    ['/nowhere', 404, 'not_found'],
    ['/api/v1/public/nowhere', 404, 'not_found'],
    ['/api/v1/public/banks/sbp', 405, 'method_not_allowed'],
  ])('answers a POST to %s (no such route) at once, reading none of its body', async (path, status, code) => {
    const ref = await start();
    const answer = await stalled(
      ref,
      `POST ${path} HTTP/1.1\r\nAuthorization: Bearer ${ref.api_key}\r\nContent-Length: 1048576`,
      'x'.repeat(1000),
    );
    expect(answer.status).toBe(status);
    expect(errorOf(answer).code).toBe(code);
    expect(ref.server.bodyBytesInFlight).toBe(0);
  });

  it('cuts an authenticated body that stops arriving with 400 after the body timeout, and keeps serving', async () => {
    const ref = await start({ bodyTimeoutMs: 200 });
    const answer = await stalled(
      ref,
      `POST /api/v1/public/payments HTTP/1.1\r\nAuthorization: Bearer ${ref.api_key}\r\nContent-Type: application/json\r\nContent-Length: 100`,
      '{"amount": 1',
    );
    expect(answer.status).toBe(400);
    expect(errorOf(answer)).toEqual({
      code: 'bad_request',
      message: 'The request body did not arrive within 0.2 s.',
    });
    expect(ref.stats().payments).toBe(0);
    await vi.waitFor(() => expect(ref.server.bodyBytesInFlight).toBe(0));
    const ok = await fetch(`${ref.base_url}/api/v1/public/payments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ref.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 100 }),
    });
    expect(ok.status).toBe(201);
  });

  it('refuses a body past the bound of bytes held at once with 503 and the error body, and serves again once it frees', async () => {
    const ref = await start({ maxBodyBytesInFlight: 64 * 1024 });
    const head = (length: number) =>
      `POST /api/v1/public/payments HTTP/1.1\r\nAuthorization: Bearer ${ref.api_key}\r\nContent-Type: application/json\r\nContent-Length: ${length}`;
    // The first upload holds 40 KiB of the 64 KiB and stalls.
    const first = stalled(ref, head(60_000), ' '.repeat(40 * 1024));
    await vi.waitFor(() => expect(ref.server.bodyBytesInFlight).toBe(40 * 1024));
    const second = await stalled(ref, head(40 * 1024), ' '.repeat(40 * 1024));
    expect(second.status).toBe(503);
    expect(second.headers['retry-after']).toBe('1');
    expect(errorOf(second)).toEqual({
      code: 'service_unavailable',
      message: 'The reference is reading too many request bodies at once; retry shortly.',
    });
    // The stalled one leaves: its bytes go back, and the next body is read in full.
    for (const s of sockets) s.destroy();
    await first.catch(() => undefined);
    await vi.waitFor(() => expect(ref.server.bodyBytesInFlight).toBe(0));
    const ok = await fetch(`${ref.base_url}/api/v1/public/payments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ref.api_key}`, 'content-type': 'application/json' },
      body: '{"amount":100}',
    });
    expect(ok.status).toBe(201);
  });
});

describe('node adapter: slow headers (slowloris)', () => {
  it("answers a request whose headers stop arriving with 408 after the body timeout, not node's 60 s", {
    timeout: 20_000,
  }, async () => {
    const ref = await start({ bodyTimeoutMs: 200 });
    const url = new URL(ref.base_url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), '127.0.0.1');
      sockets.push(socket);
      const parts: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => parts.push(chunk));
      socket.on('error', reject);
      socket.on('close', () => resolve(Buffer.concat(parts).toString('utf8')));
      // The request line and one header, then nothing: the blank line that ends the headers never comes.
      socket.write(`GET /api/v1/public/banks/sbp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: a`);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('"code":"request_timeout"');
  });
});

describe('node adapter: each route reads its body with its own cap (#9)', () => {
  it('restores a snapshot over 1 MiB sent chunked (no Content-Length)', async () => {
    const ref = await start();
    const admin = { authorization: `Bearer ${ref.admin_token}` };
    const snapshot = await (await fetch(`${ref.base_url}/_simulator/snapshot`, { headers: admin })).text();
    // JSON whitespace inside the document pads it to 2 MiB without changing it (a body cut near 1 MiB is then
    // no JSON at all).
    const padded = new TextEncoder().encode(snapshot.replace('{', `{${' '.repeat(2 * 1024 * 1024)}`));
    let at = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (at >= padded.length) return controller.close();
        controller.enqueue(padded.subarray(at, at + 64 * 1024));
        at += 64 * 1024;
      },
    });
    const res = await fetch(`${ref.base_url}/_simulator/restore`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(res.status, await res.clone().text()).toBe(200);
  });
});

describe('node adapter: bodies nobody may hold long (issue 32 F6)', () => {
  it.each([
    ['/openapi.json', false, 200],
    // The public API refuses a GET that declares a body (400, unread: its signature would be the empty body's);
    // the rest of that body never comes, and the connection is cut all the same.
    ['/api/v1/public/events', true, 400],
  ])(
    "closes a GET of %s whose declared body trickles within the body timeout, not node's 300 s",
    async (path, auth, status) => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      try {
        const ref = await start();
        const authorization = auth ? `Authorization: Bearer ${ref.api_key}\r\n` : '';
        const url = new URL(ref.base_url);
        const socket = connect(Number(url.port), '127.0.0.1');
        sockets.push(socket);
        const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
        let answer = '';
        socket.on('data', (c: Buffer) => (answer += c.toString()));
        socket.write(
          `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${authorization}Content-Length: 100\r\n\r\n0123456789`,
        );
        // @hono/node-server writes a streamed answer's head after a zero-delay timer: let it run.
        await vi.waitFor(async () => {
          await vi.advanceTimersByTimeAsync(0);
          expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
        });
        // The answer has left; the body's rest never comes. The body timeout (10 s) after the request the connection
        // is gone.
        let isClosed = false;
        void closed.then(() => (isClosed = true));
        await vi.advanceTimersByTimeAsync(9_000);
        expect(isClosed).toBe(false);
        await vi.advanceTimersByTimeAsync(1_000);
        await vi.waitFor(() => expect(isClosed).toBe(true));
      } finally {
        vi.useRealTimers();
      }
    },
  );

  it("keeps one merchant's stalled uploads to its share of the bytes held at once: another merchant still creates", async () => {
    const ref = await start({ maxBodyBytesInFlight: 4 * 1024 * 1024 });
    const other = await ref.control.createMerchant({ name: 'Other' });
    const head = (key: string, length: number) =>
      `POST /api/v1/public/payments HTTP/1.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${length}`;
    // One merchant sends six uploads that stall after 300 KiB each (1.8 MiB of the 4 MiB bound; each declares
    // 400,000 bytes, under payments.create's cap). Its share is a quarter of the bound, 1 MiB: three uploads hold
    // 900 KiB, the other three are refused at once, holding nothing.
    const chunk = ' '.repeat(300 * 1024);
    const statuses: number[] = [];
    const uploads = Array.from({ length: 6 }, () =>
      stalled(ref, head(ref.api_key, 400_000), chunk).then((a) => statuses.push(a.status)),
    );
    await vi.waitFor(() =>
      expect(statuses.length + ref.server.bodyBytesInFlight / chunk.length).toBe(uploads.length),
    );
    // The other merchant's 350 KiB create goes through while the first one's uploads still stall.
    const body = JSON.stringify({ amount: 100, description: 'x'.repeat(1000) });
    const res = await fetch(`${ref.base_url}/api/v1/public/payments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${other.api_key}`, 'content-type': 'application/json' },
      body: `${body}${' '.repeat(350 * 1024)}`,
    });
    expect(res.status, await res.clone().text()).toBe(201);
    expect(statuses).toEqual([503, 503, 503]);
    expect(ref.server.bodyBytesInFlight).toBe(3 * chunk.length);
    for (const s of sockets) s.destroy();
    await Promise.allSettled(uploads);
  });

  it('refuses a body on a route that takes none by its Content-Length, before a byte of it arrives', async () => {
    const ref = await start();
    const id = '3f8e2b6a-1c2d-4e5f-8a9b-0c1d2e3f4a5b';
    // The body never comes: only a refusal by its declared length answers at once (else the body timeout would).
    const answer = await stalled(
      ref,
      `POST /api/v1/public/payments/${id}/cancel HTTP/1.1\r\nAuthorization: Bearer ${ref.api_key}\r\nContent-Type: application/json\r\nContent-Length: 1048576`,
      '{"note":"',
    );
    expect(answer.status).toBe(400);
    expect(errorOf(answer)).toEqual({
      code: 'bad_request',
      message: 'Payload too large: the request body is larger than 1024 bytes.',
    });
    expect(ref.server.bodyBytesInFlight).toBe(0);
    // An empty body and `{}` still cancel as before (here: 404, no such payment).
    for (const body of ['', '{}']) {
      const res = await fetch(`${ref.base_url}/api/v1/public/payments/${id}/cancel`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ref.api_key}`, 'content-type': 'application/json' },
        body,
      });
      expect(res.status).toBe(404);
    }
  });
});

// Issue 40, N4: a body over its route's cap (the largest valid body of its input, body-caps.ts) is refused by its
// declared length, and what follows of it is never read: the connection closes instead of draining it.
describe('node adapter: a refused body costs its headers only', () => {
  it("refuses a create over payments.create's cap by its length, then reads none of what the client goes on sending", {
    timeout: 60_000,
  }, async () => {
    const ref = await start();
    const served: Socket[] = [];
    ref.server.server.on('connection', (s: Socket) => served.push(s));
    const url = new URL(ref.base_url);
    const socket = connect(Number(url.port), '127.0.0.1');
    sockets.push(socket);
    let text = '';
    const answered = new Promise<void>((resolve) => {
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        if (text.includes('\r\n\r\n') && text.includes('}}')) resolve();
      });
    });
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('error', () => {});
    const total = 1024 * 1024;
    socket.write(
      `POST /api/v1/public/payments HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ref.api_key}\r\nContent-Type: application/json\r\nContent-Length: ${total}\r\n\r\n`,
    );
    socket.write(' '.repeat(16 * 1024));
    await answered;
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(text.toLowerCase()).toContain('connection: close');
    expect(text).toContain('Payload too large');
    // The client goes on with the rest of its megabyte; the server reads none of it, and closes.
    socket.write(' '.repeat(total - 16 * 1024));
    await closed;
    expect(served).toHaveLength(1);
    expect(served[0]!.bytesRead).toBeLessThan(256 * 1024);
  });

  it('drains a small unread remainder, keeping the connection for the next request', async () => {
    const ref = await start();
    const id = '3f8e2b6a-1c2d-4e5f-8a9b-0c1d2e3f4a5b';
    const answer = await stalled(
      ref,
      `POST /api/v1/public/payments/${id}/cancel HTTP/1.1\r\nAuthorization: Bearer ${ref.api_key}\r\nContent-Type: application/json\r\nContent-Length: 2048`,
      '{"note":"',
    );
    expect(answer.status).toBe(400);
    expect(answer.headers.connection).not.toBe('close');
  });
});
