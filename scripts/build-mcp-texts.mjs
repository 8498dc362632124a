// (No shebang: tsup.config.ts imports this file, and its config loader puts code before a first line.)
// The spec and the guides that psp-mcp serves as resources reach it at build time: the build (tsup.config.ts), the
// tests' bundles (test/support/global-setup.ts) and vitest (vitest.config.ts) each define `__PSP_MCP_TEXTS__` as
// the texts read here, so the package carries them and nothing it ships reads a file at run time. The guides are
// docs/*.md as they are at that moment (no copy to keep fresh); the spec, which lives outside this repository, is
// the copy in src/mcp/spec.md, refreshed by hand with `--sync-spec` when the spec changes.
// Usage: node scripts/build-mcp-texts.mjs --sync-spec   (copies PSP_SPEC, else ../shared/spec/payment-service-api.md)
import { copyFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
/** The committed copy of the spec. */
export const SPEC_FILE = join(root, 'src', 'mcp', 'spec.md');
/** The guides for contributors and the benchmark report are not served. */
const SKIPPED = new Set(['architecture.md', 'benchmarks.md']);
/** The name src/mcp/texts.ts reads; the bundlers replace it with the texts. */
export const TEXTS_GLOBAL = '__PSP_MCP_TEXTS__';

/** The texts as they are now: `{ spec, docs: { name: markdown } }`. */
export function mcpTexts() {
  const docs = {};
  for (const name of readdirSync(join(root, 'docs')).sort()) {
    if (name.endsWith('.md') && !SKIPPED.has(name))
      docs[name.slice(0, -3)] = readFileSync(join(root, 'docs', name), 'utf8');
  }
  return { spec: readFileSync(SPEC_FILE, 'utf8'), docs };
}

/**
 * The `define` entry a bundler takes (esbuild, tsup, vite): the texts as one string literal, which texts.ts parses.
 * Not as an object literal: esbuild puts an object's value in the chunk every entry shares, which made the core
 * entry's bundle 122 kB larger.
 */
export function mcpTextsDefine() {
  return { [TEXTS_GLOBAL]: JSON.stringify(JSON.stringify(mcpTexts())) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  if (!process.argv.includes('--sync-spec')) {
    console.error('usage: node scripts/build-mcp-texts.mjs --sync-spec');
    process.exit(2);
  }
  const from = process.env.PSP_SPEC ?? resolve(root, '..', 'shared', 'spec', 'payment-service-api.md');
  if (!existsSync(from)) {
    console.error(`no spec at ${from}: set PSP_SPEC to its path`);
    process.exit(2);
  }
  copyFileSync(from, SPEC_FILE);
  console.log(`src/mcp/spec.md <- ${from}`);
}
