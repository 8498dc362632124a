#!/usr/bin/env node
// src/mcp/texts.json: the spec and the guides that psp-mcp serves as resources, copied into the package (nothing
// it ships reads outside it at run time). Committed like openapi.json; test/mcp/texts.test.ts fails when a guide
// changed and this was not run again.
// The spec is read from PSP_SPEC, else ../shared/spec/payment-service-api.md beside the repository; where neither
// exists the committed copy stays.
// Usage: node scripts/build-mcp-texts.mjs [--check]
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
export const TEXTS_FILE = join(root, 'src', 'mcp', 'texts.json');
/** The guides for contributors and the benchmark report are not served. */
const SKIPPED = new Set(['architecture.md', 'benchmarks.md']);

/** The spec's path, when this machine has it. */
export function specPath() {
  const path = process.env.PSP_SPEC ?? resolve(root, '..', 'shared', 'spec', 'payment-service-api.md');
  return existsSync(path) ? path : undefined;
}

/** The texts as they should be now. */
export function mcpTexts() {
  const committed = existsSync(TEXTS_FILE) ? JSON.parse(readFileSync(TEXTS_FILE, 'utf8')) : { spec: '' };
  const path = specPath();
  const docs = {};
  for (const name of readdirSync(join(root, 'docs')).sort()) {
    if (name.endsWith('.md') && !SKIPPED.has(name))
      docs[name.slice(0, -3)] = readFileSync(join(root, 'docs', name), 'utf8');
  }
  return { spec: path ? readFileSync(path, 'utf8') : committed.spec, docs };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const text = `${JSON.stringify(mcpTexts(), null, 1)}\n`;
  if (process.argv.includes('--check')) {
    if (readFileSync(TEXTS_FILE, 'utf8') !== text) {
      console.error('src/mcp/texts.json is stale: run `node scripts/build-mcp-texts.mjs`');
      process.exit(1);
    }
  } else writeFileSync(TEXTS_FILE, text);
}
