// Issue 42 item 5: docs/contract-testing.md's first block, run verbatim with bash in a merchant's project where the
// bin is this package's: it waits for the reference it starts (no fixed sleep), runs the kit against it, and stops
// it; the verdict is the kit's.
import { setTimeout as sleep } from 'node:timers/promises';
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'reference', 'cli.js');

function firstBlock(): string {
  const text = readFileSync(join(root, 'docs', 'contract-testing.md'), 'utf8');
  const start = text.indexOf('```bash\n');
  const body = text.slice(start + '```bash\n'.length);
  return body.slice(0, body.indexOf('```'));
}

describe("docs/contract-testing.md's first block", () => {
  // dist comes from npm test's build stage; a bare `vitest run` before any build has no bin to run.
  it.skipIf(!existsSync(cli))(
    'runs as written: the kit passes against the reference it started, which is then stopped',
    { timeout: 180_000 },
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'psp-contract-recipe-'));
      try {
        mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
        const bin = join(dir, 'node_modules', '.bin', 'psp-reference');
        writeFileSync(bin, `#!/bin/sh\nexec "${process.execPath}" "${cli}" "$@"\n`);
        chmodSync(bin, 0o755);
        writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'merchant', private: true }));
        const { stdout } = await promisify(execFile)('bash', ['-e', '-c', firstBlock()], {
          cwd: dir,
          timeout: 150_000,
          env: { ...process.env, npm_config_yes: 'true', NO_COLOR: '1' },
        });
        expect(stdout).toMatch(/\d+ passed, 0 failed/);
        expect(readFileSync(join(dir, 'contract.xml'), 'utf8')).toContain(
          '<testsuites name="psp-sdk contract"',
        );
        const facts = JSON.parse(readFileSync(join(dir, 'facts.json'), 'utf8').split('\n')[0]!) as {
          base_url: string;
        };
        // `kill %1` stopped it: the port no longer answers (another process's exit: waited for, bounded by the test's
        // timeout alone).
        const up = () =>
          fetch(`${facts.base_url}/api/v1/public/banks/sbp`).then(
            () => true,
            () => false,
          );
        while (await up()) await sleep(20);
        expect(await up()).toBe(false);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
