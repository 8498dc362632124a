import http from 'node:http';
import type { AddressInfo } from 'node:net';
import util from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { type Middleware, PspApiError, PspClient, PspResponseError } from '../../src/index.js';
import { failure, PHONE } from './helpers.js';

// Issue 13.4: the API never redirects, so the client follows no redirect: not the transport, not the event
// stream. Before, a 307 to another host got the body, the signature and the Idempotency-Key re-sent there.

// No word in the secrets: any 8 characters in a row of them are masked wherever they show ("Redirect" was).
const KEY = 'sk_test_ab12cd_Rd7rctTestSecret0123456789';
const THM = 'thm_Rd7rctSigningSecret0123';
const PAYMENT_ID = '6f9619ff-8b86-4d11-b42d-00c04fc964ff';
const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

interface Hit {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
}

async function serve(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const hits: Hit[] = [];
  const server = http.createServer((req, res) => {
    hits.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    req.resume();
    req.on('end', () => answer(req, res));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { hits, origin };
}

/** The API (A) answering every request with `status` and a Location on another host (B), which records hits. */
async function redirecting(status: number) {
  const other = await serve((_, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  const location = `${other.origin}/collect?token=${KEY}`;
  const api = await serve((_, res) => {
    res.writeHead(status, { location, 'content-type': 'text/plain' }).end('moved');
  });
  const client = new PspClient({ apiKey: KEY, signingSecret: THM, baseUrl: api.origin, maxRetries: 2 });
  return { api, other, client, host: new URL(other.origin).host };
}

function expectRefused(err: unknown, status: number, host: string) {
  expect(err).toBeInstanceOf(PspApiError);
  const e = err as PspApiError;
  expect(e.status).toBe(status);
  expect(e.code).toBe('unexpected_redirect');
  expect(e.message).toContain(`a redirect to ${host}`);
  // The host only: the Location's path and query may carry a token.
  const all = `${e.message} ${e.stack} ${JSON.stringify(e)} ${util.inspect(e, { showHidden: true })}`;
  expect(all).not.toContain('/collect');
  expect(all).not.toContain('Rd7rctTestSecret');
}

describe('the client follows no redirect', () => {
  it.each([307, 308, 302, 301, 303])(
    'POST /payments answered %i: nothing reaches the other host, no retry',
    async (status) => {
      const { api, other, client, host } = await redirecting(status);
      const err = await failure(client.payments.create({ amount: 100 }, { idempotencyKey: 'order-1' }));
      expectRefused(err, status, host);
      expect(other.hits).toEqual([]);
      expect(api.hits.map((h) => h.method)).toEqual(['POST']);
      expect((err as PspApiError).idempotencyKey).toBe('order-1');
    },
  );

  it('GET and a raw request: the same', async () => {
    const { api, other, client, host } = await redirecting(307);
    expectRefused(await failure(client.banks.list()), 307, host);
    expectRefused(
      await failure(client.request('POST', '/payouts', { body: { amount: 1, phone: PHONE } })),
      307,
      host,
    );
    expect(other.hits).toEqual([]);
    expect(api.hits).toHaveLength(2);
  });

  it('a middleware that builds a Request of its own (redirect: follow by default): still not followed', async () => {
    const { api, other, host } = await redirecting(307);
    // A common middleware shape: a fresh Request from the URL and a few fields, so `redirect` is the default.
    const rebuild: Middleware = async (req, next) =>
      next(new Request(req.url, { method: req.method, headers: req.headers, signal: req.signal }));
    const client = new PspClient({
      apiKey: KEY,
      signingSecret: THM,
      baseUrl: api.origin,
      middleware: [rebuild],
    });
    expectRefused(await failure(client.banks.list()), 307, host);
    expectRefused(await failure(client.payments.cancel(PAYMENT_ID)), 307, host);
    expect(other.hits).toEqual([]);
    expect(api.hits).toHaveLength(2);
  });

  it('a Location on the same host or none says so, and is not followed either', async () => {
    const api = await serve((req, res) => {
      if (req.url?.endsWith('/banks/sbp')) res.writeHead(307, { location: '/elsewhere' }).end();
      else res.writeHead(302).end();
    });
    const client = new PspClient({ apiKey: KEY, baseUrl: api.origin });
    expect(((await failure(client.banks.list())) as Error).message).toContain('a redirect to the same host');
    expect(((await failure(client.request('GET', '/x'))) as Error).message).toContain(
      'a redirect to an address the browser hides',
    );
    expect(api.hits).toHaveLength(2);
  });

  it('a custom fetch that follows anyway: its answer is refused, naming the host it ended at', async () => {
    const followed = async () => {
      const res = new Response('{"items":[]}', {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
      Object.defineProperty(res, 'redirected', { value: true });
      Object.defineProperty(res, 'url', { value: `http://evil.example:8443/x?token=${KEY}` });
      return res;
    };
    const client = new PspClient({ apiKey: KEY, baseUrl: 'http://psp.test', fetch: followed });
    const err = await failure(client.banks.list());
    expect(err).toBeInstanceOf(PspResponseError);
    expect((err as Error).message).toContain('a redirect to evil.example:8443');
    expect(JSON.stringify(err)).not.toContain('token');
  });

  it('the event stream: a 307 ends it with the typed error, the other host never sees the key', async () => {
    const { api, other, client, host } = await redirecting(307);
    const stream = client.events.stream({ maxRetries: 3 });
    let err: unknown;
    try {
      for await (const _ of stream) break;
    } catch (e) {
      err = e;
    }
    expectRefused(err, 307, host);
    expect(other.hits).toEqual([]);
    expect(api.hits).toHaveLength(1);
  });
});
