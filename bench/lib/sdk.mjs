// Where the built package lives, and a guarded import of its entries: a suite measures psp-sdk only where the
// entry already exports what it needs, and says "not built yet" otherwise instead of failing the whole run.

import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BENCH = fileURLToPath(new URL('../', import.meta.url));
/**
 * The build under test: run.mjs copies dist/ here right after building, so a teammate's `npm run build` (tsup
 * cleans dist/ first) cannot pull files from under a running benchmark. Bare imports from the copy resolve to
 * bench/node_modules, which pins the same ky, zod, @noble/hashes and hono versions as the package.
 * PSP_BENCH_DIST=<folder> measures another build instead (a proposed fix, applied to a copy of dist/).
 */
export const SNAPSHOT = process.env.PSP_BENCH_DIST
  ? `${process.env.PSP_BENCH_DIST.replace(/\/$/, '')}/`
  : `${BENCH}results/dist/`;

export const ENTRIES = {
  'psp-sdk': 'index.js',
  'psp-sdk/webhooks': 'webhooks/index.js',
  'psp-sdk/reference': 'reference/index.js',
  'psp-sdk/replicas': 'replicas/index.js',
};

/** The snapshot's file of an entry (falls back to dist/ when a suite runs alone without a snapshot). */
export function distFile(entry) {
  const snap = `${SNAPSHOT}${ENTRIES[entry]}`;
  return existsSync(snap) ? snap : `${ROOT}dist/${ENTRIES[entry]}`;
}

/** Imports a built entry of psp-sdk, or returns undefined when dist/ has no such file. */
export async function importSdk(entry) {
  const file = distFile(entry);
  if (!existsSync(file)) return undefined;
  return import(pathToFileURL(file).href);
}
