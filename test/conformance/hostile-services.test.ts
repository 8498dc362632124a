import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, it } from 'vitest';
import { runBundled } from '../support/bundles.js';

const servers: Array<() => Promise<void>> = [];
afterAll(async () => {
  await Promise.all(servers.map((close) => close()));
});

async function hostile(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const tooMany = (retryAfter: string) => (_req: IncomingMessage, res: ServerResponse) => {
  res
    .writeHead(429, { 'content-type': 'application/json', 'retry-after': retryAfter })
    .end('{"error":{"code":"rate_limited","message":"slow down"}}');
};

const trickleTimers = new Set<ReturnType<typeof setInterval>>();
servers.push(async () => {
  for (const t of trickleTimers) clearInterval(t);
});

const SERVICES: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  'never answers': () => {},
  'trickles a body forever': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"items":[');
    const t = setInterval(() => res.write(' '), 200);
    trickleTimers.add(t);
    res.on('close', () => clearInterval(t));
  },
  'answers 429 forever, Retry-After 1000000': tooMany('1000000'),
  'answers 429 forever, Retry-After 1': tooMany('1'),
};

const contract = (baseUrl: string) =>
  runBundled(
    'cli',
    [
      'contract',
      '--base-url',
      baseUrl,
      '--api-key',
      `sk_test_hostil_${'k'.repeat(32)}`,
      '--time-limit',
      '3',
      '--json',
    ],
    { env: { ...process.env, PSP_ADMIN_TOKEN: '', PSP_WEBHOOK_SECRET: '' } },
  );

describe('psp-reference contract against a hostile service', () => {
  it.concurrent.for(Object.entries(SERVICES))(
    'exits 1 with its result when the service %s',
    { timeout: 240_000 },
    async ([, handle], { expect }) => {
      const run = await contract(await hostile(handle));
      expect(run.code, run.stderr).toBe(1);
      const result = JSON.parse(run.stdout) as {
        ok: boolean;
        budgetSpent: boolean;
        counts: { passed: number; failed: number };
      };
      expect(result.ok).toBe(false);
      // Either a check failed on what came back, or the budget ran out before any could pass: never a pass.
      expect(result.counts.failed > 0 || result.budgetSpent).toBe(true);
      expect(result.counts.passed).toBe(0);
    },
  );
});
