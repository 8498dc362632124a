#!/usr/bin/env node
// Installs the pinned Deno, Node 24 and Bun binaries of test/support/runtimes (its own npm project, so a `node` dependency
// never takes over the main project's `npm run`) when they are missing or the lockfile changed, then prints their
// versions. The binaries come from the npm registry as per-platform packages, nothing else is downloaded.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('../test/support/runtimes/', import.meta.url));
const stampFile = join(dir, 'node_modules', '.psp-runtimes-stamp');

// The package smoke tests (test/package/runtimes.ts) use the same paths.
const runtimes = {
  node24: join(dir, 'node_modules', '.bin', 'node'),
  deno: join(dir, 'node_modules', '.bin', 'deno'),
  bun: join(dir, 'node_modules', '.bin', 'bun'),
};

function stamp() {
  const hash = createHash('sha256');
  for (const f of ['package.json', 'package-lock.json']) hash.update(readFileSync(join(dir, f)));
  return hash.digest('hex');
}

function version(path) {
  try {
    return execFileSync(path, ['--version'], { encoding: 'utf8', timeout: 30_000 }).split('\n')[0].trim();
  } catch {
    return undefined;
  }
}

function fresh() {
  if (!existsSync(stampFile) || readFileSync(stampFile, 'utf8') !== stamp()) return false;
  return Object.values(runtimes).every((p) => version(p) !== undefined);
}

if (!fresh()) {
  console.log('test/support/runtimes: installing the pinned runtimes (npm ci)...');
  const t0 = performance.now();
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
  writeFileSync(stampFile, stamp());
  console.log(`test/support/runtimes: installed in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

let missing = 0;
for (const [name, path] of Object.entries(runtimes)) {
  const v = version(path);
  if (!v) missing++;
  console.log(`  ${name.padEnd(7)} ${v ?? 'MISSING'}`);
}
if (missing) {
  console.error('test/support/runtimes: a runtime binary does not run; see the npm ci output above.');
  process.exit(1);
}
