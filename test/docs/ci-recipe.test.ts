import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// docs/testing.md's recipe for CI in any language, run verbatim with bash in a merchant's project where
// `npx --no-install psp-reference` is this package's bin: it must start the reference, hand its URL and key to the
// merchant's `npm test`, and stop cleanly.

const root = join(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'reference', 'cli.js');

function recipe(): string {
  const text = readFileSync(join(root, 'docs', 'testing.md'), 'utf8');
  const start = text.indexOf('```bash\n# Start the bin itself');
  expect(start, 'the CI recipe is in docs/testing.md').toBeGreaterThan(-1);
  const body = text.slice(start + '```bash\n'.length);
  return body.slice(0, body.indexOf('```'));
}

describe('the CI recipe of docs/testing.md', () => {
  // dist comes from npm test's build stage; a bare `vitest run` before any build has no bin to run.
  it.skipIf(!existsSync(cli))('runs as written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'psp-ci-recipe-'));
    try {
      // What `npm install psp-sdk` gives a merchant: the bin on node_modules/.bin.
      mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
      const bin = join(dir, 'node_modules', '.bin', 'psp-reference');
      writeFileSync(bin, `#!/bin/sh\nexec "${process.execPath}" "${cli}" "$@"\n`);
      chmodSync(bin, 0o755);
      // The merchant's own test: reads the two variables the recipe exports and calls the service.
      writeFileSync(
        join(dir, 'check.mjs'),
        `const res = await fetch(process.env.PSP_BASE_URL + '/api/v1/public/banks/sbp', {
           headers: { authorization: 'Bearer ' + process.env.PSP_API_KEY } });
         const body = await res.json();
         if (res.status !== 200 || body.items.length !== 30) { console.error(res.status, body); process.exit(1); }
         require('node:fs').writeFileSync('merchant-test-ran', process.env.PSP_BASE_URL);`.replace(
          "require('node:fs')",
          "(await import('node:fs'))",
        ),
      );
      writeFileSync(
        join(dir, 'package.json'),
        JSON.stringify({
          name: 'merchant',
          private: true,
          type: 'module',
          scripts: { test: 'node check.mjs' },
        }),
      );
      const { stdout } = await promisify(execFile)('bash', ['-e', '-c', recipe()], {
        cwd: dir,
        timeout: 60_000,
        env: { ...process.env, npm_config_yes: 'true', NO_COLOR: '1' },
      });
      const baseUrl = readFileSync(join(dir, 'merchant-test-ran'), 'utf8');
      expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(stdout).not.toContain('sk_test_');
      // `kill %1` stopped it: the port no longer answers.
      await expect
        .poll(() =>
          fetch(`${baseUrl}/api/v1/public/banks/sbp`).then(
            () => 'up',
            () => 'down',
          ),
        )
        .toBe('down');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
