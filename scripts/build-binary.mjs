#!/usr/bin/env node
// One executable of `psp-reference` for this machine's platform (the release builds linux-x64): `bun build
// --compile` of the package's declared bin, so the file carries the Bun runtime and the reference and needs no
// Node, npm or node_modules where it runs (a CI image of another language, the Dockerfile's slim base).
// Bun is the pinned one of test/support/runtimes (`npm run runtimes` installs it from the npm registry); dist/ must
// be built first (`npm run build`). Node's single executable applications would need a CommonJS bundle of the CLI
// and postject on top of a copy of node; Bun's one command compiles the ESM bin as published.
//
// Usage: node scripts/build-binary.mjs [--outfile <path>]   (default build/psp-reference-<platform>-<arch>)
//        node scripts/build-binary.mjs --release              (every release target into build/, and SHA256SUMS)
// The pinned Bun cross-compiles: it takes each target's runtime from the npm registry (@oven/bun-<platform>-<arch>),
// so one linux-x64 runner builds the linux-arm64 and darwin-arm64 files too.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The pinned Bun (scripts/ensure-runtimes.mjs puts it there), or undefined when it is not installed. */
export function bunPath() {
  const bun = join(root, 'test', 'support', 'runtimes', 'node_modules', '.bin', 'bun');
  return existsSync(bun) ? bun : undefined;
}

/** The file `bin['psp-reference']` of package.json names: what `npx psp-reference` runs, and what is compiled. */
export function declaredBin() {
  const { bin } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return join(root, bin['psp-reference']);
}

/** The executables a release attaches, by the name of their file's suffix, with Bun's target for each. */
export const RELEASE_TARGETS = {
  'linux-x64': 'bun-linux-x64',
  'linux-arm64': 'bun-linux-arm64',
  'darwin-arm64': 'bun-darwin-arm64',
};

/** `SHA256SUMS` of `files` (paths), one `<hex>  <file name>` line each, as `sha256sum -c` reads it. */
export function checksums(files) {
  return files
    .map((f) => `${createHash('sha256').update(readFileSync(f)).digest('hex')}  ${f.split(/[\\/]/).pop()}\n`)
    .join('');
}

/**
 * Compiles the declared bin into `outfile` for Bun's `target` (default this machine's); throws with Bun's output
 * when it fails.
 */
export function buildBinary(outfile, target) {
  const bun = bunPath();
  if (!bun) throw new Error('Bun is not installed in test/support/runtimes: run `npm run runtimes` first');
  const entry = declaredBin();
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` first`);
  mkdirSync(dirname(outfile), { recursive: true });
  const r = spawnSync(
    bun,
    ['build', '--compile', ...(target ? [`--target=${target}`] : []), entry, '--outfile', outfile],
    {
      cwd: root,
      encoding: 'utf8',
    },
  );
  if (r.status !== 0)
    throw new Error(`bun build --compile failed (exit ${r.status}):\n${r.stdout}${r.stderr}`);
  return outfile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { outfile: { type: 'string' }, release: { type: 'boolean' } } });
  try {
    if (values.release) {
      const files = Object.entries(RELEASE_TARGETS).map(([name, target]) =>
        buildBinary(join(root, 'build', `psp-reference-${name}`), target),
      );
      writeFileSync(join(root, 'build', 'SHA256SUMS'), checksums(files));
      for (const f of files) console.log(`build-binary: ${f}`);
      console.log(`build-binary: ${join(root, 'build', 'SHA256SUMS')}`);
    } else {
      const outfile = resolve(
        values.outfile ?? join(root, 'build', `psp-reference-${process.platform}-${process.arch}`),
      );
      buildBinary(outfile);
      console.log(`build-binary: ${outfile}`);
    }
  } catch (error) {
    console.error(`build-binary: ${error.message}`);
    process.exit(1);
  }
}
