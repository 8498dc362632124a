// Issue 36 items 1, 2 and 5: how psp-mcp starts. A live key is refused unless --allow-live, and even then every
// money-moving tool waits for a confirmation; a test-mode service is driven by URL and key; Streamable HTTP serves
// loopback only; a bad flag exits 2.
import { type ChildProcess, spawn } from 'node:child_process';
import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { IDLE_SESSION_MS, MAX_SESSIONS, serveHttp } from '../../src/mcp/http.js';
import { createPspMcp, LiveKeyRefused } from '../../src/mcp/index.js';
import { type RunningReference, startReference } from '../../src/reference/index.js';
import { signWebhook } from '../../src/webhooks/sign.js';
import { bundled } from '../support/bundles.js';
import { expectRefusal, ok, SECRET_FORMS, startAgent } from './helpers.js';

let ref: RunningReference;
let liveKey: string;
beforeAll(async () => {
  ref = await startReference({ port: 0, clock: 'manual' });
  await ref.control.updateMerchant(ref.merchant_id, { live_enabled: true });
  liveKey = (await ref.control.createApiKey(ref.terminal_id, { mode: 'live' })).api_key;
});
afterAll(async () => {
  await ref?.close();
});

/** Runs psp-mcp to its exit (it must exit by itself), stdin closed. */
function runToExit(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [bundled('mcp'), ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, out, err })),
  );
}

describe('a live key', () => {
  it('is refused at start without --allow-live, from a flag or the environment, and never printed', async () => {
    for (const run of [
      runToExit(['--base-url', ref.base_url, '--api-key', liveKey]),
      runToExit(['--from-env'], { PSP_BASE_URL: ref.base_url, PSP_API_KEY: liveKey }),
    ]) {
      const { code, out, err } = await run;
      expect(code).toBe(2);
      expect(out).toBe('');
      expect(err).toMatch(/live key .*--allow-live/);
      expect(err).not.toContain(liveKey.slice(15));
    }
    // Nothing was made with it.
    expect(ref.stats().payments).toBe(0);
  });

  it('with --allow-live: the service is driven, and a refund the client cannot confirm with a person is refused', async () => {
    const agent = await startAgent(['--allow-live', '--from-env'], {
      PSP_BASE_URL: ref.base_url,
      PSP_API_KEY: liveKey,
    });
    try {
      const names = (await agent.client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('payments_refund');
      expect(names).not.toContain('buyer_pay'); // the reference's own tools: not against a service
      const { payment } = ok(await agent.call('payments_create', { amount: 60_000 }));
      expect(payment.status).toBe('pending');
      await ref.control.succeedPayment(payment.id);
      // No elicitation in this client, and no --allow-agent-confirmation: nothing the agent could confirm alone.
      const refused = expectRefusal(
        await agent.call('payments_refund', { id: payment.id, full: true }),
        'confirmation_unavailable',
      );
      expect(refused).toContain(new URL(ref.base_url).origin);
      expect(ok(await agent.call('payments_get', { id: payment.id }))).toMatchObject({ amount_refunded: 0 });
      expectRefusal(
        await agent.call('payouts_create', {
          amount: 100,
          phone: '+79990000000',
          bank_id: '100000000111',
          full_name: 'Ivan Petrov',
        }),
        'confirmation_unavailable',
      );
      expect(ref.stats()).toMatchObject({ refunds: 0, payouts: 0 });
      for (const text of [...agent.seen, agent.stderr()]) {
        expect(text).not.toMatch(SECRET_FORMS);
        expect(text).not.toContain(liveKey.slice(15));
      }
    } finally {
      await agent.close();
    }
  });
});

describe('a test-mode service', () => {
  it('is driven by --base-url and --api-key; webhooks verify with PSP_WEBHOOK_SECRET', async () => {
    const secret = `whs_${'ab'.repeat(32)}`;
    const agent = await startAgent(['--base-url', ref.base_url, '--api-key', ref.api_key], {
      PSP_WEBHOOK_SECRET: secret,
    });
    try {
      const created = ok(await agent.call('payments_create', { amount: 1500, order_id: 'svc-1' }));
      expect(ok(await agent.call('payments_get', { id: created.payment.id })).order_id).toBe('svc-1');
      expectRefusal(await agent.call('buyer_pay', { payment_id: created.payment.id }), 'unknown_tool');
      const event = {
        id: 'evt_1',
        event: 'payment.succeeded',
        created_at: new Date().toISOString(),
        data: created.payment,
      };
      const signed = signWebhook(event, secret);
      expect(
        ok(await agent.call('webhooks_verify', { body: signed.body, headers: signed.headers })),
      ).toMatchObject({
        valid: true,
        id: 'evt_1',
      });
      const old = signWebhook(event, secret, { timestamp: new Date(Date.now() - 3_600_000) });
      const why = expectRefusal(
        await agent.call('webhooks_verify', { body: old.body, headers: old.headers }),
        'timestamp_outside_tolerance',
      );
      expect(why).toMatch(/replay|clock/i);
      for (const text of [...agent.seen, agent.stderr()]) expect(text).not.toMatch(SECRET_FORMS);
    } finally {
      await agent.close();
    }
    const without = await startAgent(['--base-url', ref.base_url, '--api-key', ref.api_key]);
    try {
      expectRefusal(await without.call('webhooks_verify', { body: '{}', headers: {} }), 'missing_secret');
    } finally {
      await without.close();
    }
  });
});

describe('the command line', () => {
  // Four starts of the bin, side by side: each loads the MCP SDK and the reference, and
  // one after the other they took over 30 s in an npm test at load 20.
  it('a bad flag or value exits 2 with the usage', { timeout: 120_000 }, async () => {
    const bad = [['--nope'], ['--clock', 'sundial'], ['--http', '70000']];
    const [help, ...runs] = await Promise.all([runToExit(['--help']), ...bad.map((args) => runToExit(args))]);
    runs.forEach(({ code, err }, i) => {
      expect(code, bad[i]!.join(' ')).toBe(2);
      expect(err).toContain('Usage: psp-mcp');
    });
    expect(help!.code).toBe(0);
    expect(help!.out).toContain('--allow-live');
  });
});

describe('Streamable HTTP', () => {
  let child: ChildProcess;
  let url: string;
  beforeAll(async () => {
    child = spawn(process.execPath, [bundled('mcp'), '--http', '0'], {
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    url = await new Promise<string>((resolve, reject) => {
      let err = '';
      child.stderr!.setEncoding('utf8').on('data', (c: string) => {
        err += c;
        const m = /serving (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
        if (m) resolve(m[1]!);
      });
      child.on('exit', () => reject(new Error(`psp-mcp exited: ${err}`)));
    });
  });
  afterAll(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('serves an MCP client on 127.0.0.1', async () => {
    const client = new Client({ name: 'http-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('payments_create');
      const result = await client.callTool({ name: 'payments_create', arguments: { amount: 700 } });
      expect(
        (result.structuredContent as { untrusted_data: { payment: { amount: number } } }).untrusted_data
          .payment.amount,
      ).toBe(700);
    } finally {
      await client.close();
    }
  });

  it('refuses a request addressed to another host (DNS rebinding) or from another origin', async () => {
    const { port } = new URL(url);
    const status = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end('{}');
      });
    expect(await status({ host: `evil.example:${port}`, 'content-type': 'application/json' })).toBe(403);
    expect(await status({ host: `127.0.0.1:${port}`, origin: 'https://evil.example' })).toBe(403);
  });

  it('stops with 0 on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});

describe('createPspMcp and serveHttp in process', () => {
  it('refuses a live key without allowLive; drives a test-mode service, its stream and its webhooks', async () => {
    await expect(createPspMcp({ baseUrl: ref.base_url, apiKey: liveKey, env: {} })).rejects.toBeInstanceOf(
      LiveKeyRefused,
    );
    const secret = `whs_${'cd'.repeat(32)}`;
    const mcp = await createPspMcp({
      fromEnv: true,
      env: { PSP_BASE_URL: ref.base_url, PSP_API_KEY: ref.api_key, PSP_WEBHOOK_SECRET: secret },
    });
    expect(mcp.kind).toBe('test');
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await mcp.connect(serverSide);
    const client = new Client({ name: 'in-process', version: '1.0.0' });
    await client.connect(clientSide);
    try {
      const call = async (name: string, args: Record<string, unknown> = {}) =>
        ((await client.callTool({ name, arguments: args })).structuredContent as Record<string, any>)
          .untrusted_data as Record<string, any>;
      const first = await call('stream_events_since'); // opens the stream
      expect(first.stream).toBe('open');
      const { payment } = await call('payments_create', { amount: 2500 });
      const page = await call('stream_events_since', { cursor: first.cursor, wait_seconds: 20 });
      expect(page.events.map((e: any) => e.payload.id)).toContain(payment.id);
      const signed = signWebhook(
        { id: 'evt_2', event: 'payment.succeeded', created_at: new Date().toISOString(), data: payment },
        secret,
      );
      expect(await call('webhooks_verify', { body: signed.body, headers: signed.headers })).toMatchObject({
        valid: true,
      });
    } finally {
      await client.close();
      await mcp.close();
    }
  });

  it('when every session is taken, closes the one unused longest once it has been idle 10 minutes, never sooner', async () => {
    const mcp = await createPspMcp({ env: {} });
    const http = await serveHttp(mcp, 0);
    // Only Date is faked: the sockets and the MCP SDK keep real timers.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const initialize = async () => {
        const res = await fetch(http.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: {
              protocolVersion: '2025-03-26',
              capabilities: {},
              clientInfo: { name: 'x', version: '1' },
            },
          }),
        });
        await res.text();
        return { status: res.status, id: res.headers.get('mcp-session-id') };
      };
      const ping = async (id: string) => {
        const res = await fetch(http.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-session-id': id,
            'mcp-protocol-version': '2025-03-26',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
        });
        await res.text();
        return res.status;
      };
      const ids: string[] = [];
      for (let i = 0; i < MAX_SESSIONS; i++) {
        const made = await initialize();
        expect(made.status).toBe(200);
        ids.push(made.id!);
      }
      expect((await initialize()).status).toBe(503);
      // The first session is used again: the second is now the one unused longest.
      vi.advanceTimersByTime(IDLE_SESSION_MS - 1000);
      expect(await ping(ids[0]!)).toBe(200);
      expect((await initialize()).status).toBe(503);
      vi.advanceTimersByTime(1000);
      const fresh = await initialize();
      expect(fresh.status).toBe(200);
      expect(await ping(ids[1]!)).toBe(404); // closed to make room
      expect(await ping(ids[0]!)).toBe(200);
      expect(await ping(fresh.id!)).toBe(200);
    } finally {
      vi.useRealTimers();
      await http.close();
      await mcp.close();
    }
  });

  it('serves Streamable HTTP on loopback to several sessions, and closes them', async () => {
    const mcp = await createPspMcp({ env: {} });
    const http = await serveHttp(mcp, 0);
    try {
      expect(http.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const clients = [new Client({ name: 'a', version: '1' }), new Client({ name: 'b', version: '1' })];
      for (const c of clients) await c.connect(new StreamableHTTPClientTransport(new URL(http.url)));
      for (const c of clients) expect((await c.listTools()).tools.length).toBeGreaterThan(10);
      const res = await fetch(http.url.replace('/mcp', '/other'), { method: 'POST', body: '{}' });
      expect(res.status).toBe(404);
      const unknown = await fetch(http.url, {
        method: 'POST',
        headers: { 'mcp-session-id': 'nope' },
        body: '{}',
      });
      expect(unknown.status).toBe(404);
      for (const c of clients) await c.close();
    } finally {
      await http.close();
      await mcp.close();
    }
  });
});
