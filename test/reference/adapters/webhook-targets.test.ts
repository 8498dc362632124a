import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseCliArgs } from '../../../src/reference/cli/cli-args.js';
import { isLoopbackHost, publicTargetsOnly } from '../../../src/reference/adapters/webhook-targets.js';
import {
  type RunningReference,
  type StartReferenceOptions,
  startReference,
} from '../../../src/reference/index.js';

// Issue 23 #16: anyone with an API key sets `webhook_url`. On loopback a private target is the point (a test
// double); a reference listening beyond loopback POSTs to private and loopback targets only when told to.

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

/** A webhook receiver on 127.0.0.1 that counts the POSTs it gets. */
async function receiver(): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  const server: Server = createServer((req, res) => {
    hits++;
    req.resume();
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, hits: () => hits };
}

/** Starts a reference, points its shop's endpoint at `url`, makes a payment succeed, and answers its first attempt. */
async function deliverOnce(options: StartReferenceOptions, url: string) {
  const ref: RunningReference = await startReference({ port: 0, clock: 'manual', ...options });
  cleanups.push(() => ref.close());
  const endpoint = await ref.control.createWebhookEndpoint(ref.shop_id, { url });
  const res = await fetch(`${ref.base_url}/api/v1/public/payments`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ref.api_key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount: 1000, webhook_url: url }),
  });
  expect(res.status).toBe(201);
  const { payment } = (await res.json()) as { payment: { id: string } };
  await ref.control.succeedPayment(payment.id);
  return vi.waitFor(async () => {
    const [first] = (await ref.control.listDeliveries(endpoint.id)).items;
    expect(first).toBeDefined();
    return first!;
  });
}

describe('webhook targets', () => {
  it('tells a loopback --host from one beyond loopback', () => {
    for (const host of [
      '127.0.0.1',
      '127.8.9.10',
      '::1',
      '[::1]',
      'localhost',
      'LOCALHOST.',
      'api.localhost',
    ])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['0.0.0.0', '::', '192.168.1.5', '10.0.0.1', 'example.com', '203.0.113.7'])
      expect(isLoopbackHost(host), host).toBe(false);
  });

  it('refuses private, loopback, link-local and mapped targets, and names resolving to one, without connecting', async () => {
    const inner = vi.fn(async () => new Response('ok'));
    const lookup = vi.fn(async (name: string) => [
      { address: name === 'public.example' ? '93.184.216.34' : '10.1.2.3' },
    ]);
    const guarded = publicTargetsOnly(inner as unknown as typeof fetch, lookup);
    for (const url of [
      'http://127.0.0.1:9/x',
      'http://2130706433/x', // 127.0.0.1 as one number
      'http://10.0.0.7/x',
      'http://192.168.0.1/x',
      'http://172.16.5.5/x',
      'http://169.254.169.254/latest/meta-data', // cloud metadata
      'http://100.64.0.1/x',
      'http://0.0.0.0/x',
      'http://[::1]/x',
      'http://[::ffff:127.0.0.1]/x',
      'http://[fd00::1]/x',
      'http://[fe80::1]/x',
      'http://localhost:4010/x',
      'http://internal.example/x', // resolves to 10.1.2.3
    ])
      await expect(guarded(url, { method: 'POST' }), url).rejects.toThrow(/private webhook target refused/);
    expect(inner).not.toHaveBeenCalled();
    await guarded('http://public.example/x', { method: 'POST' });
    await guarded('https://93.184.216.34/x', { method: 'POST' });
    expect(inner).toHaveBeenCalledTimes(2);
  });

  it('delivers to a loopback receiver when the reference listens on loopback (the default)', async () => {
    const hook = await receiver();
    const first = await deliverOnce({}, hook.url);
    expect(first.error).toBeNull();
    expect(hook.hits()).toBeGreaterThan(0);
  });

  it('refuses a loopback receiver when private targets are not allowed, and says why in the delivery log', async () => {
    const hook = await receiver();
    // What a --host beyond loopback defaults to (tests bind 127.0.0.1 only, so the mode is asked for by name).
    const first = await deliverOnce({ allowPrivateWebhookTargets: false }, hook.url);
    expect(first.status_code).toBeNull();
    expect(first.error).toMatch(/private webhook target refused: 127\.0\.0\.1/);
    expect(hook.hits()).toBe(0);
  });

  it('psp-reference --allow-private-webhooks asks for private targets', () => {
    expect(parseCliArgs(['--allow-private-webhooks']).allowPrivateWebhookTargets).toBe(true);
    expect(parseCliArgs([]).allowPrivateWebhookTargets).toBeUndefined();
  });
});
