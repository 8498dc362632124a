// Issue 42 item 2: the kit ends, with its exit status, whatever the service does. Each service here is hostile in
// one way (it never answers, it trickles a body forever, it answers 429 forever with a Retry-After of a million
// seconds or of one second); `psp-reference contract` (the bundled CLI, a process of its own) is run against it with
// a short time limit and must exit 1 with its JSON result: no timer, socket or wait of a check outlives the run.
// Nothing here measures time: the test's own timeout is only the net under a hang.
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, it } from 'vitest';
import { bundled } from '../support/bundles.js';

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

function contract(baseUrl: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(
    process.execPath,
    [
      bundled('cli'),
      'contract',
      '--base-url',
      baseUrl,
      '--api-key',
      `sk_test_hostil_${'k'.repeat(32)}`,
      '--time-limit',
      '3',
      '--json',
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PSP_ADMIN_TOKEN: '', PSP_WEBHOOK_SECRET: '' },
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    stdout += c;
  });
  child.stderr.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

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
