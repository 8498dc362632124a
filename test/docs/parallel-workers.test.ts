// Issue 41 item 4: docs/testing.md's parallel workers, run. examples/parallel-workers/ is a vitest suite whose test
// files run in parallel workers against one reference started by its globalSetup, each worker with its own merchant
// and merchant admin token. It runs in a nested vitest (its own globalSetup and workers), and the guide's blocks are
// these files, verbatim.
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const dir = join(root, 'examples', 'parallel-workers');
const files = ['global-setup.ts', 'worker.ts', 'checkout.test.ts'];

describe('docs/testing.md, parallel workers on one reference', () => {
  it("shows the example's files as they are", async () => {
    // Every fenced block, `nocheck` ones included (extract.ts leaves those out: they cannot compile in the guide).
    const markdown = await readFile(join(root, 'docs', 'testing.md'), 'utf8');
    const guide = [...markdown.matchAll(/^```ts[^\n]*\n([\s\S]*?)^```$/gm)].map((m) => ({ code: m[1]! }));
    for (const file of files) {
      // The example imports the source; the guide shows the package's names.
      const text = (await readFile(join(dir, file), 'utf8'))
        .replaceAll("'../../src/reference/index.js'", "'psp-sdk/reference'")
        .replaceAll("'../../src/index.js'", "'psp-sdk'")
        .trim();
      expect(
        guide.some((b) => b.code.trim() === text),
        `docs/testing.md shows examples/parallel-workers/${file}`,
      ).toBe(true);
    }
  });

  // CPU-bound on a loaded machine: a nested vitest loading src/ in two workers.
  it('passes with its test files in parallel workers', { timeout: 240_000 }, async () => {
    const out = join(root, 'test-output', 'parallel-workers');
    await mkdir(out, { recursive: true });
    const config = join(out, 'vitest.config.mjs');
    await writeFile(
      config,
      `export default { test: { root: ${JSON.stringify(root)}, include: ['examples/parallel-workers/*.test.ts'], ` +
        `globalSetup: [${JSON.stringify(join(dir, 'global-setup.ts'))}], maxWorkers: 2, testTimeout: 60000 } };\n`,
    );
    const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PSP_')));
    const result = await promisify(execFile)(
      process.execPath,
      [vitest, 'run', '--config', config, '--reporter', 'dot'],
      { cwd: root, env: { ...env, NO_COLOR: '1', FORCE_COLOR: '0' }, maxBuffer: 16 * 1024 * 1024 },
    ).then(
      (r) => ({ ok: true, out: r.stdout + r.stderr }),
      (e: { stdout?: string; stderr?: string }) => ({ ok: false, out: `${e.stdout ?? ''}${e.stderr ?? ''}` }),
    );
    expect(result.ok, result.out).toBe(true);
    expect(result.out).toMatch(/Test Files\s+2 passed/);
    expect(result.out).toMatch(/Tests\s+4 passed/);
  });
});
