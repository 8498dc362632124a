#!/usr/bin/env node
// Builds dist/ for a tarball unless a build newer than every input is already there.
// - `prepack` (npm pack, npm publish): a fresh clone has no dist/, so packing it builds. `npm test` builds first
//   and then packs twice more (the package smoke tests, attw): those packs must not rebuild the dist/ that steps
//   running beside them are reading.
//   Last, it takes `prepare` out of package.json for the tarball (postpack puts it back; see pack-manifest.mjs).
// - `prepare` with --as-dependency: npm packs a git (or --install-links directory) dependency after running its
//   `prepare`, not its `prepack`, so `npm install <git url>` builds here. In this repository's own `npm install`
//   (INIT_CWD, where npm was invoked, is this package) it does nothing: `npm start` runs from the sources and
//   `npm test` builds.
// Building needs the dev dependencies (tsx, tsup). A source folder without them (a downloaded archive: no .git, no
// node_modules, no dist/) cannot build, and says so in one line naming the install routes that work.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { binOf, buildDist, run } from './build-dist.mjs';
import { stripPrepare } from './pack-manifest.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const built = join(root, 'dist', 'index.js');
const asDependency = process.argv.includes('--as-dependency');

if (asDependency && resolve(process.env.INIT_CWD ?? root) === resolve(root)) process.exit(0);

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

const fresh = existsSync(built) && statSync(built).mtimeMs >= newestInput();
const tsx = binOf('tsx');
const tsup = binOf('tsup');

if (!tsx || !tsup) {
  // A folder shipped with its dist/ built installs as it is; there is nothing to check it against here.
  if (fresh && asDependency) process.exit(0);
  console.error(
    'psp-sdk: cannot build dist/ here: this folder has no dev dependencies (tsx, tsup). Install psp-sdk from a tarball (`npm ci && npm pack` in a clone), from git (`npm install git+<url>`), or run `npm ci` in this folder first.',
  );
  process.exit(1);
}

// The API description is generated from the zod schemas and committed; a tarball must never carry a stale one.
run(tsx, ['scripts/build-openapi.ts', '--check']);

if (fresh) {
  console.error('prepack: dist/ is newer than every source, not rebuilding');
} else {
  console.error('prepack: building dist/ (scripts/build-dist.mjs)');
  buildDist();
}
if (!asDependency) stripPrepare();
