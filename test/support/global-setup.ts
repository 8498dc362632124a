import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';
import { BUNDLE_DIR, BUNDLE_ENTRIES } from './bundles.js';

const root = join(import.meta.dirname, '..', '..');

/** Vitest's global setup: bundles the child-process scripts of test/support/bundles.ts (about 0.3 s). */
export default async function setup(): Promise<void> {
  await rm(BUNDLE_DIR, { recursive: true, force: true });
  await build({
    absWorkingDir: root,
    entryPoints: BUNDLE_ENTRIES,
    outdir: BUNDLE_DIR,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    // The entries share src/: one copy of each module in shared chunks, as tsup builds dist/.
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    // A child's stack trace names src/ lines when it fails (`node --enable-source-maps`).
    sourcemap: true,
    logLevel: 'error',
  });
}
