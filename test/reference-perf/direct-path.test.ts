import { createHmac } from 'node:crypto';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { listenNode, type NodeServer } from '../../src/reference/adapters/node-http.js';
import {
  createReference,
  directHandler,
  type Reference,
  type ReferenceOptions,
  wireHandler,
} from '../../src/reference/service.js';
import { type Answer, raw } from './raw-http.js';

// startReference's node adapter answers POST /payments and GET /payments/{id} straight from the IncomingMessage
// (DirectRoutes): no Request, no handler call. These prove it answers byte for byte what the full app answers,
// and that every request it cannot read alike still goes to the full app.

const open: Array<NodeServer | Reference> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((x) => x.close()));
});

interface Pair {
  ref: Reference;
  /** The listener with the direct path (as startReference runs). */
  direct: NodeServer;
  /** The listener without it: every request through @hono/node-server and the app. */
  full: NodeServer;
  /** Requests that reached the handler of the direct listener, as "METHOD target". */
  handled: string[];
}

async function pair(options: ReferenceOptions = {}): Promise<Pair> {
  const ref = createReference(options);
  open.push(ref);
  const handled: string[] = [];
  const serve = wireHandler(ref);
  const direct = await listenNode(
    (request, info) => {
      const url = new URL(request.url);
      handled.push(`${request.method} ${url.pathname}${url.search}`);
      return serve(request, info);
    },
    { direct: directHandler(ref) },
  );
  const full = await listenNode(serve);
  open.push(direct, full);
  return { ref, direct, full, handled };
}

function request(
  server: NodeServer,
  method: string,
  target: string,
  { key, body, headers = {} }: { key?: string | null; body?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  // One Host for both listeners, so payment_url is the same on both.
  const lines = [`${method} ${target} HTTP/1.1`, 'Host: ref.test'];
  if (key !== null && key !== undefined) lines.push(`Authorization: Bearer ${key}`);
  if (body !== undefined) {
    lines.push('Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`);
  }
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return raw(server, lines.join('\r\n'), body);
}

/** What must match between the two paths: everything but the per-answer request id and date. */
function comparable(answer: Answer): Answer {
  const { date: _date, 'x-request-id': requestId, ...headers } = answer.headers;
  expect(requestId).toMatch(/^req_[0-9a-f-]{36}$/);
  return { ...answer, headers };
}

const PAYMENTS = '/api/v1/public/payments';

describe('the direct path of the node adapter', () => {
  it('answers POST /payments and GET /payments/{id} without calling the handler; other routes call it', async () => {
    const { ref, direct, handled } = await pair();
    const created = await request(direct, 'POST', PAYMENTS, {
      key: ref.facts.api_key,
      body: '{"amount":150000,"order_id":"A-1"}',
    });
    expect(created.status).toBe(201);
    const { payment } = JSON.parse(created.body);
    const read = await request(direct, 'GET', `${PAYMENTS}/${payment.id}`, { key: ref.facts.api_key });
    expect(read.status).toBe(200);
    expect(JSON.parse(read.body)).toEqual(payment);
    expect(handled).toEqual([]);
    expect(
      (await request(direct, 'GET', '/api/v1/public/banks/sbp', { key: ref.facts.api_key })).status,
    ).toBe(200);
    expect(handled).toEqual(['GET /api/v1/public/banks/sbp']);
  });

  it('answers every outcome of both routes byte for byte as the full app does', async () => {
    const { ref, direct, full, handled } = await pair();
    const key = ref.facts.api_key;
    const { payment } = JSON.parse(
      (await request(direct, 'POST', PAYMENTS, { key, body: '{"amount":100}' })).body,
    );
    const cases: Array<[string, string, Parameters<typeof request>[3]]> = [
      ['GET', `${PAYMENTS}/${payment.id}`, { key }],
      ['GET', `${PAYMENTS}/${payment.id.toUpperCase()}`, { key }],
      ['GET', `${PAYMENTS}/not-a-uuid`, { key }],
      ['GET', `${PAYMENTS}/00000000-0000-4000-8000-000000000000`, { key }],
      ['GET', `${PAYMENTS}/${payment.id}`, { key: null }],
      ['GET', `${PAYMENTS}/${payment.id}`, { key: 'sk_test_unknown' }],
      ['GET', `${PAYMENTS}/${payment.id}`, { key, headers: { Authorization: 'Basic x' } }],
      ['POST', PAYMENTS, { key, body: '' }],
      ['POST', PAYMENTS, { key, body: '{' }],
      ['POST', PAYMENTS, { key, body: '{"amount":0}' }],
      ['POST', PAYMENTS, { key, body: '{"amount":100,"currency":"XXX"}' }],
      ['POST', PAYMENTS, { key, body: '[1]' }],
      ['POST', PAYMENTS, { key, body: '{"amount":100}', headers: { 'Content-Type': 'text/plain' } }],
      ['POST', PAYMENTS, { key, body: '{"amount":100}', headers: { 'Idempotency-Key': ' ' } }],
      ['POST', PAYMENTS, { key, body: '{"amount":100}', headers: { 'X-PSP-Signature': 'sha256=00' } }],
      ['POST', PAYMENTS, { key: null, body: '{"amount":100}' }],
    ];
    for (const [method, target, options] of cases) {
      const a = await request(direct, method, target, options);
      const b = await request(full, method, target, options);
      expect(comparable(a), `${method} ${target} ${JSON.stringify(options)}`).toEqual(comparable(b));
    }
    expect(handled).toEqual([]);
  });

  it('replays an Idempotency-Key alike on both paths, and a signed create passes on both', async () => {
    const { ref, direct, full } = await pair();
    const key = ref.facts.api_key;
    const headers = { 'Idempotency-Key': 'order-7' };
    const first = await request(direct, 'POST', PAYMENTS, { key, body: '{"amount":700}', headers });
    expect(first.status).toBe(201);
    const again = await request(direct, 'POST', PAYMENTS, { key, body: '{"amount":700}', headers });
    const viaFull = await request(full, 'POST', PAYMENTS, { key, body: '{"amount":700}', headers });
    expect(comparable(again)).toEqual(comparable(viaFull));
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(JSON.parse(again.body).payment.id).toBe(JSON.parse(first.body).payment.id);
    const conflict = await request(direct, 'POST', PAYMENTS, { key, body: '{"amount":701}', headers });
    expect(comparable(conflict)).toEqual(
      comparable(await request(full, 'POST', PAYMENTS, { key, body: '{"amount":701}', headers })),
    );
    expect(conflict.status).toBe(409);
    expect(ref.stats().payments).toBe(1);

    ref.cabinet.updateTerminal(ref.facts.terminal_id, { require_signature: true });
    const body = '{"amount":900}';
    const signature = `sha256=${createHmac('sha256', ref.facts.signing_secret).update(body).digest('hex')}`;
    for (const server of [direct, full]) {
      const unsigned = await request(server, 'POST', PAYMENTS, { key, body });
      expect(JSON.parse(unsigned.body).error.code).toBe('signature_required');
      const signed = await request(server, 'POST', PAYMENTS, {
        key,
        body,
        headers: { 'X-PSP-Signature': signature },
      });
      expect(signed.status).toBe(201);
    }
  });

  it('takes payment_url from the Host header as the full app does, and the listener host without one', async () => {
    const { ref, direct, full } = await pair();
    const create = async (server: NodeServer, host: string | undefined, version = '1.1') => {
      const lines = [`POST ${PAYMENTS} HTTP/${version}`, `Authorization: Bearer ${ref.facts.api_key}`];
      if (host !== undefined) lines.push(`Host: ${host}`);
      lines.push('Content-Type: application/json', 'Content-Length: 14');
      const answer = await raw(server, lines.join('\r\n'), '{"amount":100}');
      return answer.status === 201 ? new URL(JSON.parse(answer.body).payment_url).origin : answer.status;
    };
    const hosts = [
      'Shop.Example.COM',
      'Shop.Example.COM:8080',
      'example.test:8080',
      '[::1]:4010',
      '127.0.0.1:80',
    ];
    for (const host of hosts) expect(await create(direct, host)).toBe(await create(full, host));
    expect(await create(direct, 'Shop.Example.COM')).toBe('http://shop.example.com');
    // @hono/node-server refuses a host the URL parser rewrites, a port after capitals included: so does the direct path.
    expect(await create(direct, 'Shop.Example.COM:8080')).toBe(400);
    expect(await create(direct, '127.0.0.1:80')).toBe('http://127.0.0.1');
    expect(await create(direct, undefined, '1.0')).toBe(`http://127.0.0.1:${direct.port}`);
  });

  it('sends to the full app what it cannot read alike: query, encoding, chunks, big bodies, odd hosts', async () => {
    const { ref, direct, full, handled } = await pair();
    const key = ref.facts.api_key;
    const { payment } = JSON.parse(
      (await request(direct, 'POST', PAYMENTS, { key, body: '{"amount":100}' })).body,
    );
    const id = payment.id as string;
    const auth = `Authorization: Bearer ${key}`;
    const heads: Array<[string, string, string?]> = [
      [`GET ${PAYMENTS}/${id}?expand=x`, `GET ${PAYMENTS}/${id}?expand=x`],
      [
        `GET ${PAYMENTS}/%${id.charCodeAt(0).toString(16)}${id.slice(1)}`,
        `GET ${PAYMENTS}/%${id.charCodeAt(0).toString(16)}${id.slice(1)}`,
      ],
      [`GET ${PAYMENTS}/${id}/`, `GET ${PAYMENTS}/${id}/`],
      [`GET ${PAYMENTS}/x/../${id}`, `GET ${PAYMENTS}/${id}`],
      [`HEAD ${PAYMENTS}/${id}`, `HEAD ${PAYMENTS}/${id}`],
      [`POST ${PAYMENTS}?a=1`, `POST ${PAYMENTS}?a=1`, '{"amount":100}'],
      [`POST ${PAYMENTS}/`, `POST ${PAYMENTS}/`, '{"amount":100}'],
    ];
    for (const [line, seen, body] of heads) {
      const head = [`${line} HTTP/1.1`, 'Host: ref.test', auth];
      if (body !== undefined) head.push(`Content-Length: ${body.length}`);
      handled.length = 0;
      const a = await raw(direct, head.join('\r\n'), body);
      expect(handled, line).toEqual([seen]);
      const b = await raw(full, head.join('\r\n'), body);
      // A create makes a new payment on each: the status must match; a read, every byte.
      if (body === undefined) expect(comparable(a), line).toEqual(comparable(b));
      else expect(a.status, line).toBe(b.status);
    }

    handled.length = 0;
    const chunked = await raw(
      direct,
      [`POST ${PAYMENTS} HTTP/1.1`, 'Host: x.test', auth, 'Transfer-Encoding: chunked'].join('\r\n'),
      'e\r\n{"amount":100}\r\n0\r\n\r\n',
    );
    expect(chunked.status).toBe(201);
    const tooBig = await raw(
      direct,
      [`POST ${PAYMENTS} HTTP/1.1`, 'Host: x.test', auth, 'Content-Length: 2000000'].join('\r\n'),
    );
    expect(tooBig.status).toBe(400);
    const oddHost = await raw(direct, [`GET ${PAYMENTS}/${id} HTTP/1.1`, 'Host: 0x7f.1', auth].join('\r\n'));
    expect(oddHost.status).toBe(400);
    expect(JSON.parse(oddHost.body).error.code).toBe('bad_request');
    expect(handled).toEqual([`POST ${PAYMENTS}`, `POST ${PAYMENTS}`]);
  });

  it('answers pipelined requests on one connection in order: direct, full-app and hono-written answers mixed', async () => {
    const { ref, direct } = await pair();
    const key = ref.facts.api_key;
    const { payment } = JSON.parse(
      (await request(direct, 'POST', PAYMENTS, { key, body: '{"amount":100}' })).body,
    );
    const head = (line: string, extra = '') =>
      `${line} HTTP/1.1\r\nHost: ref.test\r\nAuthorization: Bearer ${key}\r\n${extra}`;
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(direct.port, '127.0.0.1');
      const parts: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => parts.push(chunk));
      socket.on('error', reject);
      socket.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
      socket.end(
        `${head(`GET ${PAYMENTS}/${payment.id}`)}\r\n` +
          // The buyer's page is a real Response that hono writes itself, between two deferred WireResponses.
          `${head(`GET /pay/${payment.id}`)}\r\n` +
          `${head(`POST ${PAYMENTS}`, 'Content-Length: 14\r\n')}\r\n{"amount":200}` +
          `${head('GET /api/v1/public/banks/sbp')}\r\n` +
          `${head(`GET ${PAYMENTS}/not-a-uuid`, 'Connection: close\r\n')}\r\n`,
      );
    });
    const statuses = [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
    expect(statuses).toEqual([200, 200, 201, 200, 404]);
    const html = text.indexOf('<!doctype html>');
    expect(html).toBeGreaterThan(text.indexOf(`"id":"${payment.id}"`));
    expect(html).toBeLessThan(text.indexOf('"amount":200'));
  });

  it('answers 500 internal_error, and keeps serving, if direct routes ever throw (a bug, not a client mistake)', async () => {
    const ref = createReference();
    open.push(ref);
    const routes = directHandler(ref)!;
    const server = await listenNode(wireHandler(ref), {
      direct: {
        maxBodyBytes: routes.maxBodyBytes,
        takes: routes.takes,
        answer: () => {
          throw new Error('a bug');
        },
      },
    });
    open.push(server);
    for (const [method, body] of [
      ['GET', undefined],
      ['POST', '{"amount":100}'],
    ] as const) {
      const target = method === 'GET' ? `${PAYMENTS}/00000000-0000-4000-8000-000000000000` : PAYMENTS;
      const answer = await request(server, method, target, { key: ref.facts.api_key, body });
      expect(answer.status).toBe(500);
      expect(JSON.parse(answer.body).error.code).toBe('internal_error');
    }
    expect(
      (await request(server, 'GET', '/api/v1/public/banks/sbp', { key: ref.facts.api_key })).status,
    ).toBe(200);
  });

  it('survives a client that leaves mid-body, and logs each answer with its status', async () => {
    const lines: string[] = [];
    const { ref, direct } = await pair({ logger: (line) => lines.push(line) });
    await new Promise<void>((resolve) => {
      const socket = connect(direct.port, '127.0.0.1', () => {
        socket.write(
          `POST ${PAYMENTS} HTTP/1.1\r\nHost: x.test\r\nAuthorization: Bearer ${ref.facts.api_key}\r\n` +
            'Content-Length: 100\r\n\r\n{"amount":',
        );
        setImmediate(() => socket.destroy());
      });
      socket.on('close', () => resolve());
    });
    const after = await request(direct, 'POST', PAYMENTS, { key: ref.facts.api_key, body: '{"amount":100}' });
    expect(after.status).toBe(201);
    expect(ref.stats().payments).toBe(1);
    expect(lines.filter((l) => l.startsWith(`POST ${PAYMENTS} 201 `))).toHaveLength(1);
    expect(lines.join('\n')).not.toContain(ref.facts.api_key);
  });
});
