// Shadow mode bounded against its upstream (issue 40, N1): an answer over the compare cap goes to the caller unread
// and is counted, never held whole; an upstream that stalls before its headers or inside a compared body gets the
// caller a 504 `gateway_timeout` and its connection closed. Real upstream servers on 127.0.0.1.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createShadow, type Shadow, type ShadowOptions } from '../../../src/reference/shadow/index.js';

const PATH = '/api/v1/public/payments/0b6c6a8e-1f4e-4c55-9f0a-6d2e1c3b5a78';
const open: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((close) => close()));
});

/** An upstream on 127.0.0.1 answering with `handler`; `closed` counts the connections that ended. */
async function upstream(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const server: Server = createServer(handler);
  let closed = 0;
  server.on('connection', (socket) => socket.on('close', () => closed++));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  open.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, closed: () => closed };
}

function shadowOf(url: string, options: Partial<ShadowOptions> = {}): Shadow {
  const shadow = createShadow({ upstream: url, ...options });
  open.push(() => shadow.close());
  return shadow;
}

const get = (shadow: Shadow) =>
  shadow.fetch(
    new Request(`http://shadow.test${PATH}`, { headers: { authorization: 'Bearer sk_test_abcdef_x' } }),
  );

/** Waits until `check` holds, on the event loop (no timer races: it only yields). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setImmediate(resolve));
}

describe('shadow mode against its upstream', () => {
  it('passes an answer over the compare cap to the caller unread, byte for byte, and counts it', async () => {
    // 8 MiB of JSON in 64 KiB chunks, over the default cap of 4 MiB.
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const whole = createHash('sha256');
    const up = await upstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"x":"');
      whole.update('{"x":"');
      let left = 128;
      const more = () => {
        while (left > 0) {
          left--;
          whole.update(chunk);
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        whole.update('"}');
        res.end('"}');
      };
      more();
    });
    const shadow = shadowOf(up.url);
    const res = await get(shadow);
    expect(res.status).toBe(200);
    const got = createHash('sha256');
    let size = 0;
    for await (const part of res.body as unknown as AsyncIterable<Uint8Array>) {
      got.update(part);
      size += part.byteLength;
    }
    expect(size).toBe(128 * chunk.byteLength + 8);
    expect(got.digest('hex')).toBe(whole.digest('hex'));
    expect(shadow.report()).toMatchObject({ compared: 0, differing: 0, too_large: 1 });
  });

  it('still compares an answer within the cap', async () => {
    const up = await upstream((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":{"code":"not_found","message":"No payment."}}');
    });
    const shadow = shadowOf(up.url, { maxCompareBytes: 1024 });
    expect((await get(shadow)).status).toBe(404);
    expect(shadow.report()).toMatchObject({ compared: 1, too_large: 0 });
  });

  it('answers 504 when the upstream sends its headers and 6 bytes, then nothing; the connection is closed', async () => {
    const up = await upstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":');
    });
    const shadow = shadowOf(up.url, { upstreamBodyTimeoutMs: 200 });
    const res = await get(shadow);
    expect(res.status).toBe(504);
    expect(await res.json()).toMatchObject({ error: { code: 'gateway_timeout' } });
    await until(() => up.closed() === 1);
    expect(shadow.report()).toMatchObject({ compared: 0 });
  });

  it('answers 504 when the upstream never sends its headers; the connection is closed', async () => {
    const up = await upstream(() => {});
    const shadow = shadowOf(up.url, { upstreamHeadersTimeoutMs: 200 });
    const res = await get(shadow);
    expect(res.status).toBe(504);
    expect(await res.json()).toMatchObject({ error: { code: 'gateway_timeout' } });
    await until(() => up.closed() === 1);
  });

  it('refuses limits that are not positive integers', () => {
    for (const bad of [0, -1, 1.5, Number.NaN])
      expect(() => createShadow({ upstream: 'http://127.0.0.1:1', maxCompareBytes: bad })).toThrow(TypeError);
    expect(() => createShadow({ upstream: 'http://127.0.0.1:1', upstreamBodyTimeoutMs: 0 })).toThrow(
      /upstreamBodyTimeoutMs must be a positive integer/,
    );
  });
});

// Issue 40 item 9, tried as a hostile client: the report is the merchant's traffic (payout phones): it answers the
// in-process reference's admin token alone, and shows no key the traffic carried.
describe("shadow mode's report", () => {
  it('refuses every credential but its admin token, and carries no key of the traffic', async () => {
    const up = await upstream((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end('{"error":{"code":"unauthorized","message":"Unknown key."}}');
    });
    const shadow = shadowOf(up.url);
    const merchantKey = 'sk_test_abcdef_HostileClientKey0123456789';
    await shadow.fetch(
      new Request(`http://shadow.test${PATH}`, { headers: { authorization: `Bearer ${merchantKey}` } }),
    );
    const report = (headers: Record<string, string>, query = '') =>
      shadow.fetch(new Request(`http://shadow.test/_shadow/report${query}`, { headers }));
    for (const [headers, query] of [
      [{}, ''],
      [{ authorization: `Bearer ${merchantKey}` }, ''],
      [{ authorization: `Bearer ${shadow.reference.api_key}` }, ''],
      [{ authorization: `Bearer ${shadow.reference.admin_token.toUpperCase()}` }, ''],
      [{ authorization: `Basic ${btoa(`admin:${shadow.reference.admin_token}`)}` }, ''],
      [{}, `?token=${shadow.reference.admin_token}`],
    ] as const)
      expect((await report(headers, query)).status, JSON.stringify(headers) + query).toBe(401);
    const ok = await report({ authorization: `Bearer ${shadow.reference.admin_token}` });
    expect(ok.status).toBe(200);
    const text = await ok.text();
    expect(text).not.toContain('HostileClientKey0123456789');
    expect(
      (await shadow.fetch(new Request('http://shadow.test/_shadow/report', { method: 'DELETE' }))).status,
    ).toBe(405);
  });
});
