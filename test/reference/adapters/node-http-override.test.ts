// The opt-in mode: @hono/node-server's light global Request/Response. It replaces globals, so it gets a file (a
// worker) of its own and these cases check that streaming and bodies still behave exactly as without it.
import { afterAll, describe, expect, it } from 'vitest';
import { listenNode, type NodeServer } from '../../../src/reference/adapters/node-http.js';
import { handSse } from './sse-source.js';

const NativeResponse = globalThis.Response;
const servers: NodeServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe('node:http adapter with overrideGlobalObjects', () => {
  it('swaps the global Response for the light one, which still is a Response', async () => {
    const server = await listenNode(() => new Response('ok'), { port: 0, overrideGlobalObjects: true });
    servers.push(server);
    expect(globalThis.Response).not.toBe(NativeResponse);
    expect(new Response('x')).toBeInstanceOf(NativeResponse);
    expect(await (await fetch(`${server.url}/`)).text()).toBe('ok');
  });

  it('flushes every SSE chunk and cancels the stream when the client goes away', async () => {
    const sse = handSse();
    const server = await listenNode(sse.handler, { port: 0, overrideGlobalObjects: true });
    servers.push(server);
    const client = await sse.open(`${server.url}/events`);
    expect(client.first).toBe(': connected\n\n');
    sse.push('event: payment.created\ndata: {}\n\n');
    expect(await client.read()).toBe('event: payment.created\ndata: {}\n\n');
    client.abort();
    await sse.cancelled;
  });

  it('reads request bodies and gives GET a null body', async () => {
    const seen: Array<[string, unknown]> = [];
    const server = await listenNode(
      async (req) => {
        seen.push([req.method, req.method === 'GET' ? req.body : await req.text()]);
        return Response.json({ ok: true }, { status: 201, headers: { 'x-a': '1' } });
      },
      { port: 0, overrideGlobalObjects: true },
    );
    servers.push(server);
    const posted = await fetch(`${server.url}/p`, { method: 'POST', body: '{"amount":1}' });
    expect(posted.status).toBe(201);
    expect(posted.headers.get('x-a')).toBe('1');
    expect(await posted.json()).toEqual({ ok: true });
    await (await fetch(`${server.url}/g`)).text();
    expect(seen).toEqual([
      ['POST', '{"amount":1}'],
      ['GET', null],
    ]);
  });
});
