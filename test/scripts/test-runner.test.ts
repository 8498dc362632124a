import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Issue 13.10: scripts/test.mjs stopped at the first failed stage, so a failed lint hid whether the Deno, Bun and
// Node 24 checks passed. Every stage runs now; each step's result is printed; the exit code still says "failed".

const root = fileURLToPath(new URL('../..', import.meta.url));
const node = process.execPath;
const step = (name: string, code: string) => ({ name, cmd: node, args: ['-e', code] });

function run(stages: unknown) {
  const r = spawnSync(node, ['scripts/test.mjs'], {
    cwd: root,
    env: { ...process.env, PSP_TEST_STAGES: JSON.stringify(stages), FORCE_COLOR: '0' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout + r.stderr };
}

describe('npm test runner', () => {
  it('runs every stage after a failure, prints each result, exits 1 with the closing count line', () => {
    const { code, out } = run([
      [step('lint', 'process.exit(1)'), step('typecheck', "console.log('typecheck ran')")],
      [step('unit', "console.log('unit ran'); process.exit(2)")],
      [step('runtimes', "console.log('runtimes ran')")],
    ]);
    expect(code).toBe(1);
    for (const ran of ['typecheck ran', 'unit ran', 'runtimes ran']) expect(out).toContain(ran);
    expect(out).toMatch(/FAIL\s+[\d.]+ s {2}lint/);
    expect(out).toMatch(/ok\s+[\d.]+ s {2}typecheck/);
    expect(out).toMatch(/FAIL\s+[\d.]+ s {2}unit/);
    expect(out).toMatch(/ok\s+[\d.]+ s {2}runtimes/);
    expect(out).toContain('Failed (2 of 4 steps): lint, unit');
    expect(out.trim().split('\n').at(-1)).toBe('tests: 0 passed, 2 failed');
  });

  it('exits 0 when every step passes', () => {
    const { code, out } = run([[step('a', '0')], [step('b', '0')]]);
    expect(code).toBe(0);
    expect(out.trim().split('\n').at(-1)).toBe('tests: 0 passed, 0 failed');
  });
});
