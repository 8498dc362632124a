#!/usr/bin/env node
// Writes the CommonJS declarations (dist/**/*.d.cts) from the ESM ones tsup emitted (dist/**/*.d.ts): the same
// types, with relative imports pointing at the .cjs twins. tsup would otherwise run the whole declaration build
// (a TypeScript program over src/) a second time for the CJS format: the slowest step of a build, done twice.
// attw (`npm run check:attw`) and the package's consumer-types tests check the result under node16 and bundler
// resolution, for require and import.
// Usage: node scripts/types-cjs.mjs [outDir]   (default dist; tsup.config.ts honours PSP_OUT_DIR the same way)
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
/** `from './x.js'` -> `from './x.cjs'`, for relative specifiers only (a package's own types stay as they are). */
export function toCjsDeclarations(source) {
  return source.replace(
    /(\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"]*?)\.js\2/g,
    '$1$2$3.cjs$2',
  );
}

/** Writes a .d.cts beside every .d.ts under `dir`; returns how many. */
export function writeCjsDeclarations(dir) {
  let written = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.d.ts')) continue;
    const file = join(entry.parentPath ?? entry.path, entry.name);
    // An ESM-only entry (the CLI: a .js and no .cjs) has no CommonJS side to describe; chunks have neither.
    const base = file.slice(0, -'.d.ts'.length);
    if (existsSync(`${base}.js`) && !existsSync(`${base}.cjs`)) continue;
    writeFileSync(file.replace(/\.d\.ts$/, '.d.cts'), toCjsDeclarations(readFileSync(file, 'utf8')));
    written++;
  }
  return written;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const outDir = resolve(root, process.argv[2] ?? process.env.PSP_OUT_DIR ?? 'dist');
  const written = writeCjsDeclarations(outDir);
  if (written === 0) {
    console.error(`types-cjs: no .d.ts files in ${outDir}; run tsup first`);
    process.exit(1);
  }
  console.error(`types-cjs: wrote ${written} .d.cts files in ${outDir}`);
}
