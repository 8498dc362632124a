import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import document from '../../openapi.json' with { type: 'json' };
import { listenNode } from '../../src/reference/adapters/node-http.js';
import { createReference, type Reference } from '../../src/reference/service.js';
import {
  OPERATIONS,
  type OperationName,
  type OperationRow,
  PUBLIC_PREFIX,
  pathOf,
} from '../../src/schemas/operations.js';
import { checkAnswer, checkedFetch } from './answer-check.js';
import { idOf, OPERATION_CASES, payoutBody } from '../support/operation-cases.js';
import { objectMaker } from '../support/object-maker.js';

// Each operation of the document, driven to each status the document lists for it, through the answer check: the
// reference answers every listed status (none is listed that it cannot answer), with a body valid for it.

const BASE = 'http://ref.test';
const PUBLIC = `${BASE}${PUBLIC_PREFIX}`;
const NAMES = Object.keys(OPERATIONS) as OperationName[];
const paths = document.paths as unknown as Record<
  string,
  Record<string, { responses: Record<string, unknown> }>
>;

let ref: Reference | undefined;
afterEach(async () => {
  await ref?.close();
  ref = undefined;
});

interface Send {
  key?: string | null;
  body?: string;
  headers?: Record<string, string>;
}

function lab() {
  ref = createReference({ clock: 'manual' });
  const r = ref;
  const fetch = checkedFetch(r.fetch.bind(r));
  const { api_key, admin_token, merchant_id, terminal_id } = r;
  const send = (method: string, url: string, o: Send = {}) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...o.headers };
    const key = o.key === undefined ? api_key : o.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    return fetch(new Request(url, { method, headers, body: o.body }));
  };
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await r.fetch(
      new Request(`${BASE}${path}`, {
        method,
        headers: { authorization: `Bearer ${admin_token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    return (await res.json()) as Record<string, any>;
  };
  const payment = async () => {
    const res = await send('POST', `${PUBLIC}/payments`, { body: '{"amount":1000}' });
    return ((await res.json()) as { payment: { id: string } }).payment.id;
  };
  const succeeded = async () => {
    const id = await payment();
    await admin('POST', `/_simulator/payments/${id}/succeed`);
    return id;
  };
  const make = objectMaker((input, init) => fetch(new Request(input, init)), BASE, api_key);
  return { r, send, admin, payment, succeeded, make, merchant_id, terminal_id };
}
type Lab = ReturnType<typeof lab>;

/** The statuses the document lists for an operation of the table. */
const listedFor = (name: OperationName): number[] => {
  const { method, path } = OPERATIONS[name];
  return Object.keys(paths[`${PUBLIC_PREFIX}${path}`]?.[method.toLowerCase()]?.responses ?? {}).map(Number);
};

/** Gets one status out of one operation; returns the answer's status. */
async function provoke(name: OperationName, status: number): Promise<number> {
  const l = lab();
  const row: OperationRow = OPERATIONS[name];
  const target = OPERATION_CASES[name];
  const url = `${BASE}${PUBLIC_PREFIX}${pathOf(name, await idOf(name, l))}`;
  const body = target.body?.();
  const M = row.method;
  const call = async (o: Send = {}) => {
    const res = await l.send(M, url, { body, ...o });
    await res.body?.cancel();
    return res.status;
  };
  const withKey = (idem: string) => ({ headers: { 'idempotency-key': idem } });
  switch (status) {
    case 200:
    case 201:
      if (status === 200 && row.idempotent) {
        await call(withKey('replay-me'));
        return call(withKey('replay-me'));
      }
      return call();
    case 400:
      return call({ headers: { 'x-psp-signature': 'sha256=not-hex' } });
    case 401:
      return call({ key: null });
    case 403: {
      const live = await l.admin('POST', `/_cabinet/terminals/${l.terminal_id}/api-keys`, { mode: 'live' });
      return call({ key: live.api_key as string });
    }
    case 404:
      return l.send(M, url.replace(/[0-9a-f-]{36}/, randomUUID()), { body }).then((res) => res.status);
    case 409:
      if (name === 'payments.cancel') {
        await call();
        return call();
      }
      if (name === 'payments.refund') {
        const pending = await l.payment();
        return l.send(M, `${PUBLIC}${pathOf(name, pending)}`).then((res) => res.status);
      }
      await call(withKey('conflict'));
      return call({ ...withKey('conflict'), body: body!.replace(/\d+/, '777') });
    case 422:
      return name === 'payments.refund'
        ? call({ body: '{"amount":999999}' })
        : call({ body: payoutBody({ bank_id: '000000000000' }) });
    case 429:
      await l.admin('PATCH', `/_cabinet/merchants/${l.merchant_id}`, {
        rate_limit: { limit: 1, window_seconds: 60 },
      });
      await call();
      return call();
    case 431:
      return oversizedHeaders(l.r, M, url);
    case 503:
      return busy(l, M, url, body);
    default:
      throw new Error(`no way to provoke ${status}`);
  }
}

/**
 * 431 comes from the node adapter (node's parser refuses the headers before a Request exists), so it is sent over
 * a socket to the reference served by node, and its answer goes through the same check as the others.
 */
async function oversizedHeaders(r: Reference, method: string, url: string): Promise<number> {
  const server = await listenNode(r.fetch.bind(r), { host: '127.0.0.1', port: 0 });
  try {
    const path = new URL(url).pathname;
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1', () =>
        socket.write(`${method} ${path} HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
      );
      let text = '';
      socket.setEncoding('utf8').on('data', (d: string) => {
        text += d;
      });
      socket.on('close', () => resolve(text));
      socket.on('error', (e: NodeJS.ErrnoException) => (e.code === 'ECONNRESET' ? resolve(text) : reject(e)));
    });
    const [head = '', body] = answer.split('\r\n\r\n');
    const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(head)?.[1]);
    const contentType = /^content-type: (.*)$/im.exec(head)?.[1]?.trim() ?? null;
    checkAnswer({ method, url }, { status, contentType, body });
    return status;
  } finally {
    await server.close();
  }
}

/**
 * 503 comes from the node adapter too: with a budget of one byte of bodies in flight, any body is one too many.
 * Sent with the caller's key (section 5 runs before the body is read), answered through the same check.
 */
async function busy(l: Lab, method: string, url: string, body = '{}'): Promise<number> {
  const server = await listenNode(l.r.fetch.bind(l.r), {
    host: '127.0.0.1',
    port: 0,
    maxBodyBytesInFlight: 1,
  });
  try {
    const at = new URL(url);
    const res = await fetch(`${server.url}${at.pathname}`, {
      method,
      headers: { authorization: `Bearer ${l.r.api_key}`, 'content-type': 'application/json' },
      body,
    });
    const text = await res.text();
    checkAnswer(
      { method, url },
      { status: res.status, contentType: res.headers.get('content-type'), body: text },
    );
    expect(res.headers.get('retry-after')).toBe('1');
    return res.status;
  } finally {
    await server.close();
  }
}

describe('every status the document lists, the reference answers', () => {
  const cases = NAMES.flatMap((name) => listedFor(name).map((status) => [name, status] as const));

  it("the document's operations are the table's rows, each with a way to reach it below", () => {
    expect(
      Object.entries(paths)
        .flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`))
        .sort(),
    ).toEqual(NAMES.map((n) => `${OPERATIONS[n].method} ${PUBLIC_PREFIX}${OPERATIONS[n].path}`).sort());
    expect(Object.keys(OPERATION_CASES).sort()).toEqual([...NAMES].sort());
  });

  it.each(cases)('%s answers %i, valid for the document', async (name, status) => {
    expect(await provoke(name, status)).toBe(status);
  });
});
