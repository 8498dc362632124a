import http from 'node:http';
import type { AddressInfo } from 'node:net';
import util from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { type Middleware, PspApiError, PspClient } from '../../src/index.js';
import { failure, PHONE } from './helpers.js';

// Issue 23.2: a middleware that hands `next` a Request for another origin got the key and the signature sent
// there, for calls and for the event stream. The key goes to baseUrl's origin only: such a request is refused
// before the key is added, like a redirect to another host, and nothing is sent to either host.

// No word in the secrets: any 8 characters in a row of them are masked wherever they show.
const KEY = 'sk_test_ab12cd_0r1g1nTestSecret0123456789';
const THM = 'thm_0r1g1nSigningSecret0123';
const PAYMENT_ID = '6f9619ff-8b86-4d11-b42d-00c04fc964ff';
const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A server on 127.0.0.1 that records every request it gets and answers `{}`. */
async function recording() {
  const hits: { method: string; url: string; headers: http.IncomingHttpHeaders }[] = [];
  const server = http.createServer((req, res) => {
    hits.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { hits, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** The client's API (A), another origin (B) and a middleware that sends every request to B, body and all. */
async function setUp() {
  const api = await recording();
  const other = await recording();
  const elsewhere: Middleware = async (req, next) => {
    const u = new URL(req.url);
    const body = req.body ? await req.text() : undefined;
    return next(
      new Request(`${other.origin}${u.pathname}`, { method: req.method, headers: req.headers, body }),
    );
  };
  const client = new PspClient({
    apiKey: KEY,
    signingSecret: THM,
    baseUrl: api.origin,
    maxRetries: 2,
    middleware: [elsewhere],
  });
  return { api, other, client, host: new URL(other.origin).host };
}

function expectRefused(err: unknown, host: string) {
  expect(err).toBeInstanceOf(PspApiError);
  const e = err as PspApiError;
  expect(e.code).toBe('unexpected_redirect');
  expect(e.status).toBe(0);
  expect(e.message).toContain(`sent the request to ${host}`);
  const all = `${e.message} ${e.stack} ${JSON.stringify(e)} ${util.inspect(e, { showHidden: true })}`;
  expect(all).not.toContain('0r1g1nTestSecret');
}

describe('a middleware that changes the origin', () => {
  it('a call is refused with the typed error: no host gets it, not retried', async () => {
    const { api, other, client, host } = await setUp();
    const created = await failure(client.payments.create({ amount: 100 }, { idempotencyKey: 'order-1' }));
    expectRefused(created, host);
    expect((created as PspApiError).idempotencyKey).toBe('order-1');
    expect((created as PspApiError).attempts).toBe(1);
    expectRefused(await failure(client.banks.list()), host);
    expectRefused(await failure(client.payments.cancel(PAYMENT_ID)), host);
    expectRefused(
      await failure(
        client.request('POST', '/payouts', { body: { amount: 1, phone: PHONE }, idempotencyKey: 'k' }),
      ),
      host,
    );
    expect(other.hits).toEqual([]);
    expect(api.hits).toEqual([]);
  });

  it('the event stream ends with the typed error: no host gets it', async () => {
    const { api, other, client, host } = await setUp();
    let err: unknown;
    try {
      for await (const _ of client.events.stream({ maxRetries: 3 })) break;
    } catch (e) {
      err = e;
    }
    expectRefused(err, host);
    expect(other.hits).toEqual([]);
    expect(api.hits).toEqual([]);
  });

  it('the same origin with another path, or a fresh Request for the same URL, still goes out with the key', async () => {
    const api = await recording();
    const rewrite: Middleware = (req, next) =>
      next(new Request(req.url.replace('/banks/sbp', '/banks/sbp2'), { headers: req.headers }));
    const client = new PspClient({ apiKey: KEY, baseUrl: api.origin, middleware: [rewrite] });
    await client.request('GET', '/banks/sbp');
    expect(api.hits.map((h) => [h.url, h.headers.authorization])).toEqual([
      ['/api/v1/public/banks/sbp2', `Bearer ${KEY}`],
    ]);
  });
});

// Issue 32 (F9): with `baseUrl: http://host/psp`, a middleware could send the key to `http://host/other-service/`
// on the same origin: the gate compared origins only. The key goes under baseUrl's path only.
describe('a middleware that leaves baseUrl’s path', () => {
  /** A client on `${origin}/psp` whose middleware rewrites every request's path with `to`. */
  async function underPsp(to: (path: string) => string) {
    const api = await recording();
    const move: Middleware = (req, next) => {
      const u = new URL(req.url);
      return next(new Request(`${u.origin}${to(u.pathname)}`, { headers: req.headers }));
    };
    const client = new PspClient({ apiKey: KEY, baseUrl: `${api.origin}/psp`, middleware: [move] });
    return { api, client };
  }

  it.each([
    ['another service on the same host', () => '/other-service/api/v1/public/banks/sbp'],
    ['a sibling whose name starts the same', (p: string) => p.replace('/psp/', '/psp2/')],
    ['dot segments', (p: string) => p.replace('/psp/', '/psp/../other/')],
    ['encoded dot segments', (p: string) => p.replace('/psp/', '/psp/%2e%2e/other/')],
    ['an encoded slash a server may decode', (p: string) => p.replace('/psp/', '/psp/..%2Fother/')],
    ['an encoded backslash', (p: string) => p.replace('/psp/', '/psp/..%5cother/')],
    ['a leading double slash', (p: string) => `/%2F%2Fevil.test${p}`],
  ])('%s: refused, unsent, with the typed error', async (_, to) => {
    const { api, client } = await underPsp(to);
    expectRefused(await failure(client.banks.list()), new URL(api.origin).host);
    let err: unknown;
    try {
      for await (const _e of client.events.stream({ maxRetries: 3 })) break;
    } catch (e) {
      err = e;
    }
    expectRefused(err, new URL(api.origin).host);
    expect(api.hits).toEqual([]);
  });

  it('a path that stays under baseUrl still goes out with the key', async () => {
    const { api, client } = await underPsp((p) => p.replace('/banks/sbp', '/banks/sbp2'));
    await client.request('GET', '/banks/sbp');
    expect(api.hits.map((h) => [h.url, h.headers.authorization])).toEqual([
      ['/psp/api/v1/public/banks/sbp2', `Bearer ${KEY}`],
    ]);
  });
});
