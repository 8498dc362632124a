import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { TestProject } from 'vitest/node';
import { mcpTextsDefine } from '../../scripts/build-mcp-texts.mjs';
import { BUNDLE_ENTRIES, BUNDLES_ROOT } from './bundles.js';

const root = join(import.meta.dirname, '..', '..');

/**
 * Vitest's global setup: bundles the child-process scripts of test/support/bundles.ts (about 0.3 s) into a folder
 * of this run's own, and removes it when the run ends.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await mkdir(BUNDLES_ROOT, { recursive: true });
  // A run that was killed left its folder: those older than a day go (no run lasts that long).
  for (const name of await readdir(BUNDLES_ROOT)) {
    const old = join(BUNDLES_ROOT, name);
    if (Date.now() - (await stat(old)).mtimeMs > 86_400_000) await rm(old, { recursive: true, force: true });
  }
  const dir = await mkdtemp(join(BUNDLES_ROOT, 'run-'));
  await build({
    absWorkingDir: root,
    entryPoints: BUNDLE_ENTRIES,
    outdir: dir,
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
    // psp-mcp's resources, as the package's build puts them in (scripts/build-mcp-texts.mjs).
    define: mcpTextsDefine(),
    logLevel: 'error',
  });
  project.provide('bundleDir', dir);
  return () => rm(dir, { recursive: true, force: true });
}
