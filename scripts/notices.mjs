#!/usr/bin/env node
// Writes dist/THIRD_PARTY_NOTICES.md: the licence of every package whose code the build bundled into dist/ (ky,
// zod, hono...), as their licences ask of anyone who redistributes it. The list is read from the build itself (the
// `sources` of dist's source maps), not kept by hand, so a dependency bundled tomorrow is named tomorrow. A bundled
// package without a licence file fails the build.
// Usage: node scripts/notices.mjs [outDir]   (default dist; tsup.config.ts honours PSP_OUT_DIR the same way)
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
export const NOTICES_FILE = 'THIRD_PARTY_NOTICES.md';

/** [name, folder] of each package a source map under `dir` names (the innermost node_modules of a nested path), by name. */
export function bundledPackageDirs(dir) {
  const found = new Map();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.map')) continue;
    const mapFile = join(entry.parentPath ?? entry.path, entry.name);
    const { sources = [], sourceRoot = '' } = JSON.parse(readFileSync(mapFile, 'utf8'));
    for (const source of sources) {
      const path = resolve(dirname(mapFile), sourceRoot, source);
      const at = path.lastIndexOf('/node_modules/');
      if (at < 0) continue;
      const rest = path.slice(at + '/node_modules/'.length).split('/');
      const name = rest.slice(0, rest[0]?.startsWith('@') ? 2 : 1).join('/');
      found.set(name, join(path.slice(0, at), 'node_modules', name));
    }
  }
  return [...found].sort(([a], [b]) => a.localeCompare(b));
}

/** The text of a package's licence file, or undefined. */
function licenceText(pkgDir) {
  const file = readdirSync(pkgDir).find((f) => /^licen[cs]e(\.(md|txt))?$/i.test(f));
  return file ? readFileSync(join(pkgDir, file), 'utf8').trim() : undefined;
}

/** Writes the notices for `dir`; returns the packages named, or throws naming those without a licence file. */
export function writeNotices(dir) {
  const packages = bundledPackageDirs(dir);
  const missing = [];
  const sections = packages.map(([name, pkgDir]) => {
    const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
    const text = licenceText(pkgDir);
    if (!text) missing.push(name);
    return `## ${name} ${manifest.version} (${manifest.license ?? 'see below'})\n\n\`\`\`text\n${text}\n\`\`\`\n`;
  });
  if (missing.length) throw new Error(`notices: no licence file in ${missing.join(', ')}`);
  writeFileSync(
    join(dir, NOTICES_FILE),
    `# Third-party notices\n\npsp-sdk's dist/ bundles code of the packages below; their licences follow.\n\n${sections.join('\n')}`,
  );
  return packages.map(([name]) => name);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const outDir = resolve(root, process.argv[2] ?? process.env.PSP_OUT_DIR ?? 'dist');
  if (!existsSync(outDir)) {
    console.error(`notices: ${outDir} does not exist; run tsup first`);
    process.exit(1);
  }
  try {
    const names = writeNotices(outDir);
    console.log(`notices: ${NOTICES_FILE} names ${names.length} bundled packages (${names.join(', ')})`);
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
