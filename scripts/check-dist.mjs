#!/usr/bin/env node
// Checks what each built entry pulls in at run time, from the files tsup wrote (dist/ and its source maps):
// - no reference code (src/reference, hono, @hono/node-server, ipaddr.js) in the client or webhooks entries, in
//   either format, even through a chunk that ESM code splitting shares with the reference;
// - no zod at run time in the webhooks entry (types only), neither imported nor bundled in;
// - no `node:` import in the client or webhooks entries (they run in browsers and edge runtimes too);
// - no MCP server code (src/mcp, @modelcontextprotocol/sdk) in any entry but psp-sdk/mcp and its CLI: the others
//   load none of it, and only its users install the optional peer;
// - the CJS entries carry no `require` of an ESM-only package (ky, @noble/hashes), which Node 20 cannot load;
// - every package a built file imports is in `dependencies` or `peerDependencies` (a consumer installs only those).
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

// `--dist <dir>` checks another build (test/package/check-dist.test.ts feeds it broken ones).
const distArg = process.argv.indexOf('--dist');
const root =
  distArg > 0 ? resolve(process.argv[distArg + 1], '..') : fileURLToPath(new URL('..', import.meta.url));
const dist = distArg > 0 ? resolve(process.argv[distArg + 1]) : join(root, 'dist');

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const installed = new Set([
  ...Object.keys(pkg.dependencies ?? {}),
  ...Object.keys(pkg.peerDependencies ?? {}),
]);
const builtins = new Set(builtinModules);
const packageName = (spec) =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/');

const referenceSources = [/(^|\/)src\/reference\//, /node_modules\/(hono|@hono\/node-server|ipaddr\.js)\//];
const referencePackages = /^(hono|@hono\/node-server|ipaddr\.js)(\/|$)/;
const esmOnly = /^(ky|@noble\/hashes)(\/|$)/;
const mcpSources = /(^|\/)src\/mcp\//;
const mcpPackages = /^@modelcontextprotocol\//;

const rules = {
  index: { reference: false, zod: true, node: false },
  'webhooks/index': { reference: false, zod: false, node: false },
  'replicas/index': { reference: false, zod: false, node: false },
  // The contract kit: the client and node:http (its webhook receiver), never the reference it may be run against.
  'conformance/index': { reference: false, zod: true, node: true },
  'reference/index': { reference: true, zod: true, node: true },
  'reference/msw': { reference: true, zod: true, node: true },
  // The psp-reference CLI, built with the other ESM entries, and the bin: a shebang that imports it. ESM only.
  'reference/cli': { reference: true, zod: true, node: true, esmOnly: true },
  'reference/bin': { reference: true, zod: true, node: true, esmOnly: true },
  // `psp-reference contract`, built with the kit (it prints through the CLI's option tables, src/reference/cli/usage.ts).
  'reference/cli-contract': { reference: true, zod: true, node: true, esmOnly: true },
  // psp-sdk/mcp drives the reference by default; its CLI and bin as the reference's.
  'mcp/index': { reference: true, zod: true, node: true, mcp: true },
  'mcp/cli': { reference: true, zod: true, node: true, mcp: true, esmOnly: true },
  'mcp/bin': { reference: true, zod: true, node: true, mcp: true, esmOnly: true },
};

/** Sources (from the .map files) and bare imports reachable from one built file. */
async function graph(file, format) {
  const result = await build({
    entryPoints: [file],
    bundle: true,
    write: false,
    metafile: true,
    logLevel: 'silent',
    format,
    platform: 'neutral',
    packages: 'external',
    absWorkingDir: root,
    external: ['node:*'],
  });
  const sources = new Set();
  const imports = new Set();
  for (const [input, meta] of Object.entries(result.metafile.inputs)) {
    const map = resolve(root, `${input}.map`);
    if (existsSync(map)) {
      for (const s of JSON.parse(readFileSync(map, 'utf8')).sources) {
        sources.add(relative(root, resolve(dirname(map), s)));
      }
    }
    for (const imp of meta.imports) if (imp.external) imports.add(imp.path);
  }
  return { files: Object.keys(result.metafile.inputs), sources: [...sources], imports: [...imports] };
}

const problems = [];
for (const [entry, allow] of Object.entries(rules)) {
  const formats = [
    ['js', 'esm'],
    ['cjs', 'cjs'],
  ];
  for (const [ext, format] of allow.esmOnly ? formats.slice(0, 1) : formats) {
    const file = join(dist, `${entry}.${ext}`);
    if (!existsSync(file)) {
      problems.push(`${entry}.${ext}: missing (run the build first)`);
      continue;
    }
    const g = await graph(file, format);
    const name = `dist/${entry}.${ext}`;
    if (!allow.reference) {
      for (const s of g.sources)
        if (referenceSources.some((r) => r.test(s))) problems.push(`${name}: contains ${s}`);
      for (const i of g.imports) if (referencePackages.test(i)) problems.push(`${name}: imports ${i}`);
    }
    if (!allow.zod) {
      for (const i of g.imports) if (/^zod(\/|$)/.test(i)) problems.push(`${name}: imports ${i}`);
      for (const s of g.sources) if (/node_modules\/zod\//.test(s)) problems.push(`${name}: contains ${s}`);
    }
    if (!allow.mcp) {
      for (const s of g.sources) if (mcpSources.test(s)) problems.push(`${name}: contains ${s}`);
      for (const i of g.imports) if (mcpPackages.test(i)) problems.push(`${name}: imports ${i}`);
    }
    if (!allow.node)
      for (const i of g.imports) if (i.startsWith('node:')) problems.push(`${name}: imports ${i}`);
    for (const i of g.imports) {
      if (i.startsWith('node:') || builtins.has(packageName(i)) || installed.has(packageName(i))) continue;
      problems.push(
        `${name}: imports ${i}, which package.json lists in neither dependencies nor peerDependencies`,
      );
    }
    if (format === 'cjs')
      for (const i of g.imports) if (esmOnly.test(i)) problems.push(`${name}: requires ESM-only ${i}`);
    console.log(
      `  ${name.padEnd(28)} ${g.files.length} file(s); runtime imports: ${g.imports.join(', ') || '-'}`,
    );
  }
}

if (problems.length) {
  console.error(`\nbundle isolation: ${problems.length} problem(s):`);
  for (const p of problems) console.error(`  - ${p}`);
  process.exit(1);
}
console.log('bundle isolation: ok');
