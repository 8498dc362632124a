import { createHmac } from 'node:crypto';
import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenNode, type NodeServer } from '../../../src/reference/adapters/node-http.js';
import { createReference, type Reference } from '../../../src/reference/service.js';
import { type Answer, raw } from './raw-http.js';

// Over a real socket the reference answers byte for byte what `reference.fetch` answers (one request path: the node
// adapter only turns bytes into a Request and a Response back into bytes). Headers that only HTTP/1.1 framing adds
// (date, connection, keep-alive, content-length, transfer-encoding) and the per-answer request id are left out.

const PAYMENTS = '/api/v1/public/payments';
const lines: string[] = [];
let ref: Reference;
let server: NodeServer;
let key: string;
let existingId: string;

beforeAll(async () => {
  ref = createReference({ clock: 'manual', logger: (line) => lines.push(line) });
  await ref.control.updateMerchant(ref.merchant_id, { rate_limit: { limit: 1_000_000, window_seconds: 1 } });
  server = await listenNode((request, info) => ref.fetch(request, info));
  key = ref.api_key;
  existingId = JSON.parse((await send('POST', PAYMENTS, { key, body: '{"amount":100}' })).body).payment.id;
});
afterAll(async () => {
  await server?.close();
  await ref?.close();
});

interface Options {
  key?: string | null;
  body?: string;
  headers?: Record<string, string>;
  host?: string;
  chunked?: boolean;
}

function headLines(method: string, target: string, o: Options): string[] {
  const out = [`${method} ${target} HTTP/1.1`];
  if (o.host !== '') out.push(`Host: ${o.host ?? 'ref.test'}`);
  if (o.key) out.push(`Authorization: Bearer ${o.key}`);
  for (const [name, value] of Object.entries(o.headers ?? {})) out.push(`${name}: ${value}`);
  if (o.chunked) out.push('Transfer-Encoding: chunked');
  else if (o.body !== undefined) out.push(`Content-Length: ${Buffer.byteLength(o.body)}`);
  return out;
}

/** One request over the socket. */
function send(method: string, target: string, o: Options = {}): Promise<Answer> {
  const body = o.body ?? '';
  const framed = o.chunked
    ? `${body ? `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n` : ''}0\r\n\r\n`
    : body;
  return raw(server, headLines(method, target, o).join('\r\n'), framed);
}

/** The same request through `reference.fetch`. */
async function fetchOf(method: string, target: string, o: Options = {}): Promise<Answer> {
  const headers = new Headers(o.headers);
  if (o.key) headers.set('authorization', `Bearer ${o.key}`);
  const hasBody = o.body !== undefined && method !== 'GET' && method !== 'HEAD';
  const res = await ref.fetch(
    new Request(`http://${o.host || 'ref.test'}${target}`, {
      method,
      headers,
      // Bytes, not a string: a string body would get a default text/plain Content-Type the socket request lacks.
      ...(hasBody ? { body: new TextEncoder().encode(o.body) } : {}),
    }),
    { remoteAddress: '127.0.0.1' },
  );
  const out: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    out[name] = value;
  });
  return { status: res.status, headers: out, body: await res.text() };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const FRAMING = new Set([
  'date',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
  'x-request-id',
]);
/** What must be equal: status, body (new ids masked) and every header but framing and the request id. */
function comparable(answer: Answer): Answer {
  const headers = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !FRAMING.has(name)));
  return {
    status: answer.status,
    headers,
    body: answer.body.replace(UUID, (id) => (id === existingId ? id : 'NEW')),
  };
}

async function expectAlike(method: string, target: string, o: Options = {}): Promise<Answer> {
  const wire = await send(method, target, o);
  const direct = await fetchOf(method, target, o);
  expect(wire.headers['x-request-id'], `${method} ${target}`).toMatch(/^req_[0-9a-f-]{36}$/);
  expect(comparable(wire), `${method} ${target} ${JSON.stringify(o)}`).toEqual(comparable(direct));
  if (!o.chunked && wire.headers['content-length'] !== undefined)
    expect(Number(wire.headers['content-length'])).toBe(Buffer.byteLength(wire.body));
  return wire;
}

describe('the reference over node:http answers as reference.fetch does', () => {
  it('every outcome of POST /payments and GET /payments/{id}', async () => {
    const cases: Array<[string, string, Options]> = [
      ['GET', `${PAYMENTS}/${existingId}`, { key }],
      ['GET', `${PAYMENTS}/${existingId.toUpperCase()}`, { key }],
      ['GET', `${PAYMENTS}/not-a-uuid`, { key }],
      ['GET', `${PAYMENTS}/00000000-0000-4000-8000-000000000000`, { key }],
      ['GET', `${PAYMENTS}/${existingId}`, { key: null }],
      ['GET', `${PAYMENTS}/${existingId}`, { key: 'sk_test_unknown' }],
      ['GET', `${PAYMENTS}/${existingId}`, { headers: { Authorization: 'Basic eDp5' } }],
      ['GET', `${PAYMENTS}/${existingId}?expand=x`, { key }],
      ['GET', `${PAYMENTS}/%${existingId.charCodeAt(0).toString(16)}${existingId.slice(1)}`, { key }],
      ['GET', `${PAYMENTS}/${existingId}/`, { key }],
      ['HEAD', `${PAYMENTS}/${existingId}`, { key }],
      ['PUT', `${PAYMENTS}/${existingId}`, { key }],
      ['GET', PAYMENTS, { key }],
      ['POST', PAYMENTS, { key, body: '' }],
      ['POST', PAYMENTS, { key, body: '{' }],
      ['POST', PAYMENTS, { key, body: '{"amount":0}' }],
      ['POST', PAYMENTS, { key, body: '{"amount":100,"currency":"XXX"}' }],
      ['POST', PAYMENTS, { key, body: '[1]' }],
      ['POST', PAYMENTS, { key, body: '{"amount":100}', headers: { 'Content-Type': 'text/plain' } }],
      ['POST', PAYMENTS, { key, body: '{"amount":100}', headers: { 'Idempotency-Key': ' ' } }],
      ['POST', PAYMENTS, { key, body: '{"amount":100}', headers: { 'X-PSP-Signature': 'sha256=00' } }],
      ['POST', PAYMENTS, { key: null, body: '{"amount":100}' }],
      ['POST', PAYMENTS, { key, body: '{"amount":100}' }],
      ['POST', `${PAYMENTS}?a=1`, { key, body: '{"amount":100}' }],
      ['POST', PAYMENTS, { key, body: '{"amount":100}', chunked: true }],
      ['GET', '/api/v1/public/banks/sbp', { key }],
      ['GET', '/nowhere', {}],
    ];
    for (const [method, target, o] of cases) await expectAlike(method, target, o);
  });

  it('random requests around the busiest routes: alike, and never a 5xx', async () => {
    const request = fc.record({
      method: fc.constantFrom('GET', 'POST', 'HEAD'),
      target: fc.constantFrom(
        PAYMENTS,
        `${PAYMENTS}/EXISTING`,
        `${PAYMENTS}/00000000-0000-4000-8000-000000000000`,
        `${PAYMENTS}/x`,
        `${PAYMENTS}/${'A'.repeat(65)}`,
        `${PAYMENTS}/EXISTING/..`,
        `${PAYMENTS}%2F`,
      ),
      key: fc.constantFrom('valid', 'missing', 'unknown'),
      host: fc.constantFrom('ref.test', 'Ref.Test', 'ref.test:8080', '[::1]'),
      contentType: fc.constantFrom(
        undefined,
        'application/json',
        'text/plain',
        'application/json; charset=utf-8',
      ),
      idempotencyKey: fc.constantFrom(undefined, 'k', ' '),
      signature: fc.constantFrom(undefined, 'valid', 'sha256=00'),
      body: fc.oneof(
        fc.record({ amount: fc.integer({ min: -5, max: 2_000_000 }) }).map((b) => JSON.stringify(b)),
        fc.constantFrom('', '{', '[]', 'null', '{"amount":"100"}', '{"amount":100,"extra":true}'),
      ),
      chunked: fc.boolean(),
    });
    let n = 0;
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        n++;
        const body = r.method === 'POST' ? r.body : undefined;
        const headers: Record<string, string> = {};
        if (r.contentType) headers['Content-Type'] = r.contentType;
        if (r.signature === 'valid')
          headers['X-PSP-Signature'] = `sha256=${createHmac('sha256', ref.signing_secret)
            .update(body ?? '')
            .digest('hex')}`;
        else if (r.signature) headers['X-PSP-Signature'] = r.signature;
        const options = (nonce: string): Options => ({
          key: r.key === 'valid' ? key : r.key === 'unknown' ? 'sk_test_nobody_0000' : null,
          host: r.host,
          chunked: r.chunked && body !== undefined,
          // A fresh Idempotency-Key per send, or the second send would replay the first one's payment.
          headers:
            r.idempotencyKey === 'k'
              ? { ...headers, 'Idempotency-Key': `k-${nonce}` }
              : r.idempotencyKey
                ? { ...headers, 'Idempotency-Key': r.idempotencyKey }
                : headers,
          ...(body !== undefined ? { body } : {}),
        });
        const target = r.target.replace('EXISTING', existingId);
        const wire = await send(r.method, target, options(`a${n}`));
        const direct = await fetchOf(r.method, target, options(`b${n}`));
        expect(comparable(wire)).toEqual(comparable(direct));
        expect(wire.status).toBeLessThan(500);
      }),
      { numRuns: 150 },
    );
  });

  it('replays an Idempotency-Key and checks a signature over the raw bytes', async () => {
    const headers = { 'Idempotency-Key': `order-${Date.now()}` };
    const first = await send('POST', PAYMENTS, { key, body: '{"amount":700}', headers });
    expect(first.status).toBe(201);
    const again = await expectAlike('POST', PAYMENTS, { key, body: '{"amount":700}', headers });
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(JSON.parse(again.body).payment.id).toBe(JSON.parse(first.body).payment.id);
    expect((await expectAlike('POST', PAYMENTS, { key, body: '{"amount":701}', headers })).status).toBe(409);

    await ref.control.updateTerminal(ref.terminal_id, { require_signature: true });
    try {
      const body = '{"amount":900}';
      const signature = `sha256=${createHmac('sha256', ref.signing_secret).update(body).digest('hex')}`;
      expect(JSON.parse((await send('POST', PAYMENTS, { key, body })).body).error.code).toBe(
        'signature_required',
      );
      expect(
        (await send('POST', PAYMENTS, { key, body, headers: { 'X-PSP-Signature': signature } })).status,
      ).toBe(201);
      expect(
        (
          await send('POST', PAYMENTS, {
            key,
            body,
            chunked: true,
            headers: { 'X-PSP-Signature': signature },
          })
        ).status,
      ).toBe(201);
    } finally {
      await ref.control.updateTerminal(ref.terminal_id, { require_signature: false });
    }
  });

  it('takes payment_url from the Host header, and the listener address without one', async () => {
    const create = async (host: string | undefined, version = '1.1') => {
      const head = [`POST ${PAYMENTS} HTTP/${version}`, `Authorization: Bearer ${key}`];
      if (host !== undefined) head.push(`Host: ${host}`);
      head.push('Content-Type: application/json', 'Content-Length: 14');
      const answer = await raw(server, head.join('\r\n'), '{"amount":100}');
      return answer.status === 201 ? new URL(JSON.parse(answer.body).payment_url).origin : answer.status;
    };
    expect(await create('Shop.Example.COM')).toBe('http://shop.example.com');
    expect(await create('example.test:8080')).toBe('http://example.test:8080');
    expect(await create('[::1]:4010')).toBe('http://[::1]:4010');
    expect(await create('127.0.0.1:80')).toBe('http://127.0.0.1');
    // A host the URL parser would rewrite is refused (400 with the error body), never guessed at.
    expect(await create('0x7f.1')).toBe(400);
    expect(await create(undefined, '1.0')).toBe(`http://127.0.0.1:${server.port}`);
  });

  it('reads two Authorization headers as one joined value: a malformed one', async () => {
    const answer = await raw(
      server,
      [
        `GET /api/v1/public/banks/sbp HTTP/1.1`,
        'Host: ref.test',
        `Authorization: Bearer ${key}`,
        `authorization: Bearer ${key}`,
      ].join('\r\n'),
    );
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body).error.message).toBe(
      'The Authorization header must be "Bearer <API key>".',
    );
  });

  it('answers a body over 1 MiB with 400 bad_request, payload too large (the spec lists no 413), by Content-Length or chunked, and keeps serving', async () => {
    const tooBig = await raw(
      server,
      [
        `POST ${PAYMENTS} HTTP/1.1`,
        'Host: ref.test',
        `Authorization: Bearer ${key}`,
        'Content-Length: 2000000',
      ].join('\r\n'),
    );
    expect(tooBig.status).toBe(400);
    expect(JSON.parse(tooBig.body).error).toMatchObject({
      code: 'bad_request',
      message: expect.stringMatching(/^Payload too large/),
    });
    const chunk = ' '.repeat(64 * 1024);
    const chunked = await raw(
      server,
      [
        `POST ${PAYMENTS} HTTP/1.1`,
        'Host: ref.test',
        `Authorization: Bearer ${key}`,
        'Transfer-Encoding: chunked',
      ].join('\r\n'),
      `${`10000\r\n${chunk}\r\n`.repeat(20)}0\r\n\r\n`,
    );
    expect(chunked.status).toBe(400);
    expect((await send('POST', PAYMENTS, { key, body: '{"amount":100}' })).status).toBe(201);
  });

  it('answers pipelined requests on one keep-alive connection in wire order', async () => {
    const head = (line: string, extra = '') =>
      `${line} HTTP/1.1\r\nHost: ref.test\r\nAuthorization: Bearer ${key}\r\n${extra}`;
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1');
      const parts: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => parts.push(chunk));
      socket.on('error', reject);
      socket.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
      socket.end(
        `${head(`GET ${PAYMENTS}/${existingId}`)}\r\n` +
          `${head(`GET /pay/${existingId}`)}\r\n` +
          `${head(`POST ${PAYMENTS}`, 'Content-Length: 14\r\n')}\r\n{"amount":200}` +
          `${head('GET /api/v1/public/banks/sbp')}\r\n` +
          `${head(`HEAD ${PAYMENTS}/${existingId}`)}\r\n` +
          `${head(`GET ${PAYMENTS}/not-a-uuid`, 'Connection: close\r\n')}\r\n`,
      );
    });
    const statuses = [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
    expect(statuses).toEqual([200, 200, 201, 200, 200, 404]);
    const html = text.indexOf('<!doctype html>');
    expect(html).toBeGreaterThan(text.indexOf(`"id":"${existingId}"`));
    expect(html).toBeLessThan(text.indexOf('"amount":200'));
    expect(text.indexOf('"amount":200')).toBeLessThan(text.indexOf('"member_id"'));
  });

  it('survives a client that leaves mid-body, and logs each answer once, without the key', async () => {
    const before = ref.stats().payments;
    lines.length = 0;
    await new Promise<void>((resolve) => {
      const socket = connect(server.port, '127.0.0.1', () => {
        socket.write(
          `POST ${PAYMENTS} HTTP/1.1\r\nHost: x.test\r\nAuthorization: Bearer ${key}\r\nContent-Length: 100\r\n\r\n{"amount":`,
        );
        setImmediate(() => socket.destroy());
      });
      socket.on('close', () => resolve());
    });
    const after = await send('POST', PAYMENTS, { key, body: '{"amount":100}' });
    expect(after.status).toBe(201);
    expect(ref.stats().payments).toBe(before + 1);
    expect(lines.filter((l) => l.startsWith(`POST ${PAYMENTS} 201 `))).toHaveLength(1);
    expect(lines.join('\n')).not.toContain(key);
  });
});

describe('Expect', () => {
  it('refuses an expectation other than 100-continue with 400 and the error body, after authentication', async () => {
    const nope = await send('POST', PAYMENTS, {
      key,
      body: '{"amount":100}',
      headers: { Expect: '999-nope' },
    });
    expect(nope.status).toBe(400);
    expect(JSON.parse(nope.body).error).toEqual({
      code: 'bad_request',
      message: 'Expect: only "100-continue" is supported.',
    });
    const anonymous = await send('GET', `${PAYMENTS}/${existingId}`, { headers: { Expect: '999-nope' } });
    expect(anonymous.status).toBe(401);
    const control = await raw(
      server,
      [
        `GET /_simulator/clock HTTP/1.1`,
        'Host: ref.test',
        `Authorization: Bearer ${ref.admin_token}`,
        'Expect: 999-nope',
      ].join('\r\n'),
    );
    expect(control.status).toBe(400);
    expect(JSON.parse(control.body).error.code).toBe('bad_request');
    // reference.fetch (msw, Deno, Bun) answers the same.
    await expectAlike('POST', PAYMENTS, { key, body: '{"amount":100}', headers: { Expect: '999-nope' } });
  });

  it('keeps 100-continue working: the interim answer, then the body, then 201', async () => {
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1');
      let seen = '';
      let sent = false;
      socket.on('data', (chunk: Buffer) => {
        seen += chunk.toString('utf8');
        if (!sent && seen.includes('100 Continue\r\n\r\n')) {
          sent = true;
          socket.end('{"amount":100}');
        }
      });
      socket.on('error', reject);
      socket.on('end', () => resolve(seen));
      socket.write(
        [
          `POST ${PAYMENTS} HTTP/1.1`,
          'Host: ref.test',
          `Authorization: Bearer ${key}`,
          'Expect: 100-continue',
          'Content-Length: 14',
          'Connection: close',
          '',
          '',
        ].join('\r\n'),
      );
    });
    expect(text.startsWith('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 ')).toBe(true);
  });
});
