#!/usr/bin/env node
// dist/ from src/ and the committed openapi.json. The one list of the build's steps: `npm run build` runs it after
// writing openapi.json, prepack.mjs after checking it (a tarball ships what is committed).
// 1. TypeScript 7 (the native compiler) checks src/ and emits its declarations into a temp folder.
// 2. tsup bundles the JavaScript, and those declarations into one .d.ts per entry (tsup.config.ts reads the folder
//    from PSP_DECLARATIONS). tsup's own declaration build ran a TypeScript 6 program over src/: 28 of a build's 32 s
//    of CPU here, where the native emit takes 2 s and bundling ready declarations 2 more.
// 3. types-cjs.mjs writes the .d.cts twins of the .d.ts files, notices.mjs the licences of what tsup bundled.
// Usage: node scripts/build-dist.mjs
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
export function run(script, args = [], env = process.env) {
  const r = spawnSync(process.execPath, [script, ...args], {
    cwd: root,
    env,
    stdio: ['ignore', process.stderr, 'inherit'],
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

/** Builds dist/. */
export function buildDist() {
  const tsup = binOf('tsup');
  const tsc = binOf('typescript-native', 'tsc');
  if (!tsup || !tsc) throw new Error('build-dist: tsup or typescript-native is not installed (run `npm ci`)');
  const declarations = mkdtempSync(join(tmpdir(), 'psp-sdk-declarations-'));
  // run() exits on a failed step, and an exit skips `finally`: the folder goes on exit either way.
  const removeDeclarations = () => rmSync(declarations, { recursive: true, force: true });
  process.once('exit', removeDeclarations);
  // --rootDir .: src/ imports the root's openapi.json, so the folder mirrors the repository (src/index.d.ts...).
  run(tsc, [
    '-p',
    'tsconfig.build.json',
    '--noEmit',
    'false',
    '--declaration',
    '--emitDeclarationOnly',
    '--rootDir',
    '.',
    '--outDir',
    declarations,
    '--pretty',
    'false',
  ]);
  run(tsup, [], { ...process.env, PSP_DECLARATIONS: declarations });
  removeDeclarations();
  process.off('exit', removeDeclarations);
  run(join(root, 'scripts', 'types-cjs.mjs'));
  run(join(root, 'scripts', 'notices.mjs'));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) buildDist();
