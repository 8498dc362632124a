// Issue 42 item 3: the kit as a judge of a service that is not the reference. Prism (from npm, a devDependency),
// started here as a stateless mock of the project's own openapi.json, answers every request with a valid example
// and remembers nothing. The checks that once passed against it (a signed request, the SDK's own Idempotency-Key,
// the SDK's bank list) must now fail; a check that rests on the reference's plan of outcomes by amount is
// needs-control, not failed; and a payment_url on a host the kit cannot reach is the kit's reach (skipped), never a
// "fetch failed" verdict on the service.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runContract } from '../../src/conformance/index.js';

const root = join(import.meta.dirname, '..', '..');
let prism: ChildProcess;
let baseUrl: string;

/** A port free now on 127.0.0.1 (Prism takes a port number, not 0). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  const port = await freePort();
  prism = spawn(
    process.execPath,
    [
      join(root, 'node_modules', '@stoplight', 'prism-cli', 'dist', 'index.js'),
      'mock',
      join(root, 'openapi.json'),
      '-h',
      '127.0.0.1',
      '-p',
      String(port),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', SCARF_ANALYTICS: 'false' } },
  );
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const seen = (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (/Prism is listening/.test(out)) resolve();
    };
    prism.stdout!.on('data', seen);
    prism.stderr!.on('data', seen);
    prism.on('exit', (code) => reject(new Error(`prism exited ${code} before listening:\n${out}`)));
  });
  baseUrl = `http://127.0.0.1:${port}`;
}, 120_000);

afterAll(async () => {
  if (prism && prism.exitCode === null && prism.signalCode === null) {
    const exited = new Promise((resolve) => prism.on('exit', resolve));
    prism.kill('SIGTERM');
    await exited;
  }
});

describe('the contract kit against Prism serving openapi.json (a stateless mock)', {
  timeout: 180_000,
}, () => {
  it('fails the checks a mock that remembers nothing cannot pass, and blames no other failure on the kit', async () => {
    const result = await runContract({
      baseUrl,
      apiKey: `sk_test_prism0_${'k'.repeat(32)}`,
      signingSecret: `thm_${'s'.repeat(40)}`,
    });
    const outcome = (id: string) => result.checks.find((c) => c.id === id)?.outcome;
    for (const id of ['signing.signed-requests', 'idempotency.sdk-retry-once', 'banks.sdk-list'])
      expect(outcome(id), id).toBe('failed');
    for (const id of ['payments.buyer-pays', 'payments.bank-declines'])
      expect(outcome(id), id).toBe('needs-control');
    // The example payment_url is on a host this machine cannot reach: the kit's reach, said so, not a failure.
    const unreached = result.checks.filter((c) => /fetch failed/.test(c.reason ?? ''));
    expect(unreached.length).toBeGreaterThan(0);
    for (const c of unreached) {
      expect(c.outcome, c.id).toBe('skipped');
      expect(c.reason).toMatch(/could not reach the buyer's page/);
    }
    expect(result.ok).toBe(false);
  });
});
