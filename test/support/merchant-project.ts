// A merchant's project in a temporary folder, where `npx --no-install psp-reference` runs this package's built bin
// (what `npm install psp-sdk` gives it), for the tests that run a guide's shell recipe as written.
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

const root = join(import.meta.dirname, '..', '..');

/** The built psp-reference bin; npm test's build stage makes it, so a bare `vitest run` may have none. */
export const REFERENCE_CLI = join(root, 'dist', 'reference', 'cli.js');

/** A new project folder named `prefix...` with the bin on node_modules/.bin and `pkg` as its package.json. */
export function merchantProject(prefix: string, pkg: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  const bin = join(dir, 'node_modules', '.bin', 'psp-reference');
  writeFileSync(bin, `#!/bin/sh\nexec "${process.execPath}" "${REFERENCE_CLI}" "$@"\n`);
  chmodSync(bin, 0o755);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'merchant', private: true, ...pkg }));
  return dir;
}

/** The text of the first ```bash block of docs/`file` that starts with `opening` (default: the first of all). */
export function bashBlock(file: string, opening = ''): string | undefined {
  const text = readFileSync(join(root, 'docs', file), 'utf8');
  const start = text.indexOf(`\`\`\`bash\n${opening}`);
  if (start < 0) return undefined;
  const body = text.slice(start + '```bash\n'.length);
  return body.slice(0, body.indexOf('```'));
}

/** Runs `script` with `bash -e` in `dir`, as a merchant's CI would; rejects on a non-zero exit or after `timeout`. */
export function runRecipe(dir: string, script: string, timeout: number): Promise<{ stdout: string }> {
  return promisify(execFile)('bash', ['-e', '-c', script], {
    cwd: dir,
    timeout,
    env: { ...process.env, npm_config_yes: 'true', NO_COLOR: '1' },
  });
}

/**
 * Resolves once the reference at `baseUrl` no longer answers: another process's exit, waited for in 20 ms steps and
 * bounded by the test's timeout alone (a loaded machine may take seconds).
 */
export async function untilStopped(baseUrl: string): Promise<void> {
  const up = () =>
    fetch(`${baseUrl}/api/v1/public/banks/sbp`).then(
      async (res) => {
        await res.body?.cancel();
        return true;
      },
      () => false,
    );
  while (await up()) await sleep(20);
}
