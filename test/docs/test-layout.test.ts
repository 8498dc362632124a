import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

// Issue 22.7: the rule for where a test lives, as docs/architecture.md ("Tests") states it. A test of
// src/<path>/ sits in test/<path>/ (test/scripts/ mirrors scripts/ the same way); a suite that crosses parts on
// purpose sits in one of the named folders below; nothing else sits at the top of test/.
const root = join(import.meta.dirname, '..', '..');

/** The named folders and their one job each (the doc names every one). */
const NAMED = {
  e2e: 'the client (calls, event stream, waitFor, verifyWebhook) against the reference',
  trust: 'attacks, chaos and concurrency across both halves',
  package: 'the built package: the packed tarball under Node, Deno, Bun and edge runtimes, consumer types',
  docs: 'the docs and examples/ say what is true and run',
  exports: "each public entry's list of exports, and one meaning per exported name under src/",
  support: 'helpers shared by several folders (no tests)',
} as const;

const isTest = (file: string) => /\.test\.[cm]?[jt]s$/.test(file);

/** Every file under `dir`, as a posix path relative to it; node_modules (the pinned runtimes) is not entered. */
function files(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((d) => {
    const path = prefix ? `${prefix}/${d.name}` : d.name;
    if (d.isDirectory()) return d.name === 'node_modules' ? [] : files(dir, path);
    return d.isFile() ? [path] : [];
  });
}

/** Every folder under `dir` (posix, relative to the repository), `dir` itself included. */
function folders(dir: string): string[] {
  const below = readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => relative(root, join(d.parentPath, d.name)).split(sep).join('/'));
  return [dir, ...below];
}

/**
 * What breaks the rule, one line per file. `testFiles` are paths relative to test/; `mirrored` the folders a test
 * folder may mirror, relative to the repository (src/... and scripts/...).
 */
function layoutProblems(testFiles: string[], mirrored: string[]): string[] {
  const problems: string[] = [];
  const mirrors = new Set(
    mirrored.map((d) => (d.startsWith('src/') ? d.slice(4) : d)).filter((d) => d !== 'src'),
  );
  for (const file of testFiles) {
    const folder = posix.dirname(file);
    const top = file.split('/')[0] ?? '';
    if (folder === '.') problems.push(`${file}: a loose file at the top of test/`);
    else if (top === 'support' && isTest(file))
      problems.push(`${file}: test/support/ holds helpers, not tests`);
    else if (top in NAMED) continue;
    else if (!mirrors.has(top))
      problems.push(`${file}: test/${top}/ is neither a mirror of src/ nor a named folder`);
    else if (isTest(file) && !mirrors.has(folder))
      problems.push(`${file}: test/${folder}/ mirrors no folder of src/ (or scripts/)`);
  }
  return problems;
}

describe('the layout of test/ (docs/architecture.md, "Tests")', () => {
  const mirrored = [...folders('src'), ...folders('scripts')];

  it('every file sits in a folder that mirrors src/ (or scripts/), or in a named cross-part folder', () => {
    expect(layoutProblems(files(join(root, 'test')), mirrored)).toEqual([]);
  });

  it('catches a loose file, an unknown top folder, a folder src/ lacks, and a test among the helpers', () => {
    const problems = layoutProblems(
      [
        'schemas.test.ts',
        'observability/wait-for.test.ts',
        'reference/nowhere/x.test.ts',
        'support/redis-server.test.ts',
        'reference/state/round-trip.test.ts',
        'reference/fixtures/runtime-check.mjs',
        'scripts/demo/demo.test.ts',
        'e2e/deep/any.test.ts',
        'support/redis-server.ts',
      ],
      ['src', 'src/reference', 'src/reference/state', 'scripts', 'scripts/demo'],
    );
    expect(problems.map((p) => p.split(':')[0])).toEqual([
      'schemas.test.ts',
      'observability/wait-for.test.ts',
      'reference/nowhere/x.test.ts',
      'support/redis-server.test.ts',
    ]);
  });

  it('docs/architecture.md states the rule and names every named folder', () => {
    const doc = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
    const section = doc.split(/^## /m).find((s) => s.startsWith('Tests'));
    expect(section, 'a "## Tests" section').toBeDefined();
    expect(section).toContain('`test/<path>/` mirrors `src/<path>/`');
    for (const name of Object.keys(NAMED)) expect(section).toContain(`\`test/${name}/\``);
  });
});
