// Writes what is made from the zod schemas and the operation table (src/openapi, src/schemas/operations.ts):
// openapi.json, the OpenAPI 3.1 document of the public API; the docs' list of operation names (the sentence of
// docs/observability.md between `<!-- operations -->` marks); and docs/mcp.md's table of psp-mcp's API tools
// (between `<!-- api tools -->` marks, from the tools' words). A new row reaches both pages without a hand edit.
// Run by `npm run build` before tsup, which bundles the document into the reference (served at GET /openapi.json);
// the package ships it as `psp-sdk/openapi.json`.
//
// Usage: tsx scripts/build-openapi.ts [--check]   (--check: exit 1 when a file is not what the sources make)
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pkg from '../package.json' with { type: 'json' };
import { buildOpenApiDocument } from '../src/openapi/document.js';
import { toolsTable } from '../src/mcp/tools/words.js';
import { OPERATIONS } from '../src/schemas/operations.js';

const read = (file: string) => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
};

const openapi = fileURLToPath(new URL('../openapi.json', import.meta.url));
const guide = fileURLToPath(new URL('../docs/observability.md', import.meta.url));
const mcp = fileURLToPath(new URL('../docs/mcp.md', import.meta.url));
const names = Object.keys(OPERATIONS)
  .map((n) => `\`'${n}'\``)
  .join(', ');
const made: Array<[string, string]> = [
  [openapi, `${JSON.stringify(buildOpenApiDocument(pkg.version), null, 2)}\n`],
  [guide, read(guide).replace(/(<!-- operations -->)[\s\S]*?(<!-- \/operations -->)/, `$1${names}$2`)],
  [
    mcp,
    read(mcp).replace(/(<!-- api tools -->\n)[\s\S]*?(\n<!-- \/api tools -->)/, `$1\n${toolsTable()}\n$2`),
  ],
];

for (const [file, text] of made) {
  if (read(file) === text) continue;
  if (process.argv.includes('--check')) {
    process.stderr.write(`${file} is stale: run \`npm run build:openapi\` and commit it\n`);
    process.exit(1);
  }
  // Written whole or not at all: tsc and tsup may read it at the same moment.
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}
