import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const bin = (name: string) => join(root, 'test', 'runtimes', 'node_modules', '.bin', name);
const fixture = join(import.meta.dirname, 'fixtures', 'runtime-check.mjs');

// Deno and Bun come from test/runtimes (installed by scripts/ensure-runtimes.mjs, as .ci/run does). Where they
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
        expect(result.close_ms).toBeLessThan(1000);
      },
    );
  }
});
