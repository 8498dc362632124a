// Issue 44 item 1: psp-sdk's optional msw peer takes msw 3 beside msw 2. A consumer project installs the packed
// tarball with msw 3.0.5 (from the npm cache the pinned runtimes' install fills), and the reference's msw handlers
// serve a payment under Node 24 (msw 3 needs Node >= 22.12). msw 2 on Node 20 is the other package tests' consumer.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { lastJson, runScript, runtimes, runtimesInstalled } from './runtimes.js';

const here = new URL('.', import.meta.url).pathname;
const node24 = runtimes.find((r) => r.name === 'Node 24 (ESM)')!;
let dir = '';

beforeAll(() => {
  if (!runtimesInstalled()) return;
  const consumer = JSON.parse(readFileSync(join(inject('consumerDir'), 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  dir = mkdtempSync(join(tmpdir(), 'psp-sdk-msw3-'));
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({
      name: 'psp-sdk-msw3-consumer',
      private: true,
      type: 'module',
      dependencies: { 'psp-sdk': consumer.dependencies['psp-sdk'], msw: '3.0.5' },
    }),
  );
  cpSync(join(here, 'fixtures-msw3', 'serve.mjs'), join(dir, 'serve.mjs'));
  // npm resolves the peer range here: with `msw: ^2.15.0` alone this install failed (ERESOLVE).
  execFileSync(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock'],
    {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
}, 180_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!runtimesInstalled())('psp-sdk/reference/msw with msw 3 on Node 24', () => {
  it('installs beside msw 3 and its handlers serve a payment', async () => {
    const result = await runScript(node24, dir, 'serve', 60_000);
    expect(result.code, result.stderr).toBe(0);
    expect(lastJson(result)).toEqual({ msw: '3.0.5', node: '24.21.0', status: 'succeeded', amount: 1500 });
  });
});
