import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * scripts/prepack.mjs in a source folder without the dev dependencies (a downloaded archive: no .git, no
 * node_modules, no dist/): one clear line naming the install routes that work, instead of npx's message about
 * tsx. The routes that build (npm pack in a set-up clone, a git or --install-links dependency) are exercised in
 * test/package/fresh-clone.test.ts.
 */
const root = join(import.meta.dirname, '..', '..');
const work = mkdtempSync(join(tmpdir(), 'psp-sdk-prepack-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A copy of the package's sources with no node_modules anywhere above it. */
function sourceFolder(name: string, withDist: boolean): string {
  const dir = join(work, name);
  mkdirSync(join(dir, 'scripts'), { recursive: true });
  for (const script of ['prepack.mjs', 'build-dist.mjs', 'pack-manifest.mjs'])
    cpSync(join(root, 'scripts', script), join(dir, 'scripts', script));
  cpSync(join(root, 'package.json'), join(dir, 'package.json'));
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src', 'index.ts'), 'export const x = 1;\n');
  const old = new Date(Date.now() - 60_000);
  utimesSync(join(dir, 'src', 'index.ts'), old, old);
  utimesSync(join(dir, 'package.json'), old, old);
  if (withDist) {
    mkdirSync(join(dir, 'dist'));
    writeFileSync(join(dir, 'dist', 'index.js'), 'export const x = 1;\n');
  }
  return dir;
}

function prepack(dir: string, args: string[]) {
  // INIT_CWD elsewhere: npm installing this folder into an app, not this folder's own `npm install`.
  const r = spawnSync(process.execPath, [join(dir, 'scripts', 'prepack.mjs'), ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, INIT_CWD: work },
  });
  return { status: r.status, stderr: r.stderr };
}

describe('prepack without the dev dependencies', () => {
  it.each([
    ['prepare (a directory or git dependency)', ['--as-dependency']],
    ['prepack (npm pack)', []],
  ])('%s: exits 1 with one line naming the routes that work', (_name, args) => {
    const { status, stderr } = prepack(sourceFolder(`bare-${args.length}`, false), args);
    expect(status).toBe(1);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^psp-sdk: cannot build dist\/ here: this folder has no dev dependencies \(tsx, tsup\)\./,
    );
    expect(lines[0]).toContain('from a tarball');
    expect(lines[0]).toContain('from git');
    expect(lines[0]).toContain('`npm ci` in this folder');
    expect(stderr).not.toMatch(/npx|canceled/);
  });

  it('a folder that ships a built dist/ installs as it is', () => {
    expect(prepack(sourceFolder('built', true), ['--as-dependency'])).toEqual({ status: 0, stderr: '' });
  });
});
