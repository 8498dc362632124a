// Writes openapi.json, the OpenAPI 3.1 document of the public API, from the zod schemas and the operation table
// (src/openapi). Run by `npm run build` before tsup, which bundles the file into the reference (served at
// GET /openapi.json); the package ships it as `psp-sdk/openapi.json`.
//
// Usage: tsx scripts/build-openapi.ts [--check]   (--check: exit 1 when openapi.json is not what the sources make)
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pkg from '../package.json' with { type: 'json' };
import { buildOpenApiDocument } from '../src/openapi/document.js';

const target = fileURLToPath(new URL('../openapi.json', import.meta.url));
const text = `${JSON.stringify(buildOpenApiDocument(pkg.version), null, 2)}\n`;
let current = '';
try {
  current = readFileSync(target, 'utf8');
} catch {}

if (process.argv.includes('--check')) {
  if (current !== text) {
    process.stderr.write(
      'openapi.json is stale: run `npm run build` (or tsx scripts/build-openapi.ts) and commit it\n',
    );
    process.exit(1);
  }
} else if (current !== text) {
  // Written whole or not at all: tsc and tsup may read it at the same moment.
  const tmp = `${target}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, target);
}
