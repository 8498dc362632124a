#!/usr/bin/env node
// dist/ from src/ and the committed openapi.json: tsup, then the .d.cts twins of its .d.ts (types-cjs.mjs), then
// the licences of what it bundled (notices.mjs). The one list of the build's steps: `npm run build` runs it after
// writing openapi.json, prepack.mjs after checking it (a tarball ships what is committed).
// Usage: node scripts/build-dist.mjs
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The JS file of a dev dependency's bin, found as node would find the package (node_modules up the tree). */
export function binOf(pkg, name = pkg) {
  for (let dir = root; ; dir = dirname(dir)) {
    const manifest = join(dir, 'node_modules', pkg, 'package.json');
    if (existsSync(manifest)) {
      const { bin } = JSON.parse(readFileSync(manifest, 'utf8'));
      return join(dirname(manifest), typeof bin === 'string' ? bin : bin[name]);
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/** Runs a script with this node, its output on stderr (`npm pack --json` keeps stdout for the JSON); exits on failure. */
export function run(script, args = []) {
  const r = spawnSync(process.execPath, [script, ...args], {
    cwd: root,
    stdio: ['ignore', process.stderr, 'inherit'],
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

/** Builds dist/. */
export function buildDist() {
  const tsup = binOf('tsup');
  if (!tsup) throw new Error('build-dist: tsup is not installed (run `npm ci`)');
  run(tsup);
  run(join(root, 'scripts', 'types-cjs.mjs'));
  run(join(root, 'scripts', 'notices.mjs'));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) buildDist();
