import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const bin = (name: string) => join(root, 'test', 'support', 'runtimes', 'node_modules', '.bin', name);
const fixture = join(import.meta.dirname, 'fixtures', 'runtime-check.mjs');

// Deno and Bun come from test/support/runtimes (installed by scripts/ensure-runtimes.mjs, as .ci/run does). Where they
// are missing the case is skipped, and says so.
const runtimes = [
  { name: 'deno', args: ['run', '-A', '--no-lock', '--unstable-sloppy-imports', fixture] },
  { name: 'bun', args: [fixture] },
].map((r) => ({ ...r, missing: existsSync(bin(r.name)) ? undefined : `${bin(r.name)} is not installed` }));

describe('startReference in other runtimes (their node:http)', () => {
  for (const runtime of runtimes) {
    it.skipIf(runtime.missing !== undefined)(
      `${runtime.name}: full payment, allow-list on the socket address, SSE, prompt close${runtime.missing ? ` (skipped: ${runtime.missing})` : ''}`,
      () => {
        const run = spawnSync(bin(runtime.name), runtime.args, {
          cwd: root,
          encoding: 'utf8',
          timeout: 20_000,
          env: { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' },
        });
        expect(run.status, run.stderr).toBe(0);
        const lines = run.stdout.trim().split('\n');
        const result = JSON.parse(lines[lines.length - 1]!) as Record<string, unknown>;
        expect(result).toMatchObject({
          created: 201,
          page: 200,
          pay_button: true,
          paid: 303,
          status: 'succeeded',
          denied: 403,
          denied_code: 'ip_not_allowed',
          allowed: 200,
          first: ': connected\n\n',
          ended: true,
        });
        expect(result.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        expect(result.pay_url).toBe(`${result.base_url}/pay`);
      },
    );
  }
});

describe('the psp-reference CLI in other runtimes', () => {
  const cliPath = join(root, 'src', 'reference', 'cli', 'cli.ts');
  const clis = [
    { name: 'deno', args: ['run', '-A', '--no-lock', '--unstable-sloppy-imports', cliPath] },
    { name: 'bun', args: [cliPath] },
  ].map((r) => ({ ...r, missing: existsSync(bin(r.name)) ? undefined : `${bin(r.name)} is not installed` }));

  for (const runtime of clis) {
    it.skipIf(runtime.missing !== undefined)(
      `${runtime.name}: prints the JSON line, serves, and exits 0 on SIGTERM${runtime.missing ? ` (skipped: ${runtime.missing})` : ''}`,
      async () => {
        const child = spawn(bin(runtime.name), [...runtime.args, '--port', '0', '--json', '--quiet'], {
          cwd: root,
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' },
        });
        try {
          let out = '';
          let err = '';
          child.stderr.setEncoding('utf8').on('data', (c: string) => {
            err += c;
          });
          const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
          const line = await new Promise<string>((resolve, reject) => {
            child.stdout.setEncoding('utf8').on('data', (c: string) => {
              out += c;
              if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
            });
            void exit.then((code) => reject(new Error(`exited ${code} before printing: ${err}`)));
          });
          const facts = JSON.parse(line) as { base_url: string; api_key: string };
          const banks = await fetch(`${facts.base_url}/api/v1/public/banks/sbp`, {
            headers: { authorization: `Bearer ${facts.api_key}` },
          });
          expect(banks.status).toBe(200);
          child.kill('SIGTERM');
          expect(await exit, err).toBe(0);
        } finally {
          if (child.exitCode === null) child.kill('SIGKILL');
        }
      },
    );
  }
});
