#!/usr/bin/env node
// Builds dist/ for a tarball unless a build newer than every input is already there.
// - `prepack` (npm pack, npm publish): a fresh clone has no dist/, so packing it builds. `npm test` builds first
//   and then packs twice more (the package smoke tests, attw): those packs must not rebuild the dist/ that steps
//   running beside them are reading.
// - `prepare` with --as-dependency: npm packs a git (or --install-links directory) dependency after running its
//   `prepare`, not its `prepack`, so `npm install <git url>` builds here. In this repository's own `npm install`
//   (INIT_CWD, where npm was invoked, is this package) it does nothing: `npm start` runs from the sources and
//   `npm test` builds.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const built = join(root, 'dist', 'index.js');

if (process.argv.includes('--as-dependency') && resolve(process.env.INIT_CWD ?? root) === resolve(root)) {
  process.exit(0);
}

/** The newest modification time among the build's inputs: src/ and the build's own configuration. */
function newestInput() {
  let newest = 0;
  const visit = (path) => {
    const stat = statSync(path);
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
    else newest = Math.max(newest, stat.mtimeMs);
  };
  visit(join(root, 'src'));
  for (const f of [
    'openapi.json',
    'tsup.config.ts',
    'tsconfig.json',
    'tsconfig.build.json',
    'package.json',
  ]) {
    if (existsSync(join(root, f))) visit(join(root, f));
  }
  return newest;
}

// The API description is generated from the zod schemas and committed; a tarball must never carry a stale one.
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const check = spawnSync(npx, ['--no', 'tsx', 'scripts/build-openapi.ts', '--check'], {
  cwd: root,
  stdio: ['ignore', process.stderr, 'inherit'],
});
if (check.status !== 0) process.exit(check.status ?? 1);

if (existsSync(built) && statSync(built).mtimeMs >= newestInput()) {
  console.error('prepack: dist/ is newer than every source, not rebuilding');
} else {
  console.error('prepack: building dist/ (tsup)');
  const tsup = spawnSync(npx, ['--no', 'tsup'], {
    cwd: root,
    // Its log goes to stderr: `npm pack --json` keeps stdout for the JSON.
    stdio: ['ignore', process.stderr, 'inherit'],
  });
  process.exit(tsup.status ?? 1);
}
