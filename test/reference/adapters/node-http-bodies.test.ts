import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningReference, startReference } from '../../../src/reference/index.js';

// Request bodies over a real socket, sent in pieces: the bytes the app judges (and signs over) are exactly those
// sent, the limits hold, and a client that leaves mid-body changes nothing.

const running: RunningReference[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

async function start() {
  const ref = await startReference({ port: 0 });
  running.push(ref);
  return ref;
}

/** Sends `chunks` as a chunked POST, one write each; resolves to status and body text. */
function postChunks(
  ref: RunningReference,
  path: string,
  chunks: Uint8Array[],
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${ref.base_url}${path}`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${ref.api_key}`,
          'content-type': 'application/json',
          ...headers,
        },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString() }));
      },
    );
    req.on('error', reject);
    for (const c of chunks) req.write(c);
    req.end();
  });
}

describe('request bodies over node:http', () => {
  it('joins chunks byte-exactly: a character split across chunks, and the signature over the raw bytes', async () => {
    const ref = await start();
    await ref.control.updateTerminal(ref.terminal_id, { require_signature: true });
    const bytes = new TextEncoder().encode('{"amount": 150000,   "order_id": "Заказ-✓"}');
    const cut = bytes.indexOf(0xe2); // first byte of ✓ (3 bytes in UTF-8)
    const chunks = [bytes.subarray(0, 5), bytes.subarray(5, cut + 1), bytes.subarray(cut + 1)];
    const signature = `sha256=${createHmac('sha256', ref.signing_secret).update(bytes).digest('hex')}`;
    const ok = await postChunks(ref, '/api/v1/public/payments', chunks, { 'x-psp-signature': signature });
    expect(ok.status).toBe(201);
    expect(JSON.parse(ok.text).payment.order_id).toBe('Заказ-✓');

    const wrong = `sha256=${createHmac('sha256', ref.signing_secret).update('{}').digest('hex')}`;
    const bad = await postChunks(ref, '/api/v1/public/payments', chunks, { 'x-psp-signature': wrong });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text).error.code).toBe('invalid_signature');
  });

  it('answers an empty body, invalid UTF-8 and a body over 1 MiB as before, and keeps serving', async () => {
    const ref = await start();
    const empty = await postChunks(ref, '/api/v1/public/payments', []);
    expect(empty.status).toBe(400);
    expect(JSON.parse(empty.text).error.message).toBe('A JSON request body is required.');

    const latin1 = await postChunks(ref, '/api/v1/public/payments', [Uint8Array.of(0x7b, 0xff, 0x7d)]);
    expect(latin1.status).toBe(400);
    expect(JSON.parse(latin1.text).error.message).toBe('The request body is not valid UTF-8.');

    const big = Array.from({ length: 20 }, () => new Uint8Array(64 * 1024).fill(0x20));
    const tooBig = await postChunks(ref, '/api/v1/public/payments', big);
    expect(tooBig.status).toBe(400);
    expect(JSON.parse(tooBig.text).error).toMatchObject({
      code: 'bad_request',
      message: expect.stringMatching(/^Payload too large/),
    });

    const after = await postChunks(ref, '/api/v1/public/payments', [
      new TextEncoder().encode('{"amount":1000}'),
    ]);
    expect(after.status).toBe(201);
  });

  it('survives a client that goes away in the middle of a body', async () => {
    const ref = await start();
    await new Promise<void>((resolve) => {
      const req = httpRequest(`${ref.base_url}/api/v1/public/payments`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${ref.api_key}`,
          'content-type': 'application/json',
          'content-length': '1000',
        },
      });
      req.on('error', () => resolve());
      req.write('{"amount":', () => setImmediate(() => req.destroy()));
      req.on('close', () => resolve());
    });
    const next = await postChunks(ref, '/api/v1/public/payments', [
      new TextEncoder().encode('{"amount":1000}'),
    ]);
    expect(next.status).toBe(201);
    expect(ref.stats().payments).toBe(1);
  });
});

describe('a body cut off by a client that leaves', () => {
  it('never reaches a route: a refund whose body was cut off refunds nothing', async () => {
    const { createReference } = await import('../../../src/reference/service.js');
    const { listenNode } = await import('../../../src/reference/adapters/node-http.js');
    const ref = createReference();
    const server = await listenNode((request, info) => ref.fetch(request, info));
    try {
      const auth = { authorization: `Bearer ${ref.api_key}` };
      const created = await fetch(`${server.url}/api/v1/public/payments`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: '{"amount":1000}',
      });
      const { payment } = (await created.json()) as { payment: { id: string } };
      await ref.control.succeedPayment(payment.id);
      const serverSocketClosed = new Promise<void>((resolve) =>
        server.server.once('connection', (socket) => socket.on('close', () => resolve())),
      );
      const req = httpRequest(`${server.url}/api/v1/public/payments/${payment.id}/refund`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', 'content-length': '100' },
      });
      req.on('error', () => {});
      req.write('{"amount":', () => setImmediate(() => req.destroy()));
      await serverSocketClosed;
      const read = await fetch(`${server.url}/api/v1/public/payments/${payment.id}`, { headers: auth });
      expect(((await read.json()) as { amount_refunded: number }).amount_refunded).toBe(0);
      expect(ref.stats().refunds).toBe(0);
    } finally {
      await server.close();
      await ref.close();
    }
  });
});
