import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { BuildOptions, Plugin } from 'esbuild';
import { defineConfig, type Options } from 'tsup';
import { mcpTextsDefine } from './scripts/build-mcp-texts.mjs';

const entry = {
  index: 'src/index.ts',
  'webhooks/index': 'src/webhooks/index.ts',
  'replicas/index': 'src/replicas/index.ts',
  'reference/index': 'src/reference/index.ts',
  'reference/msw': 'src/reference/msw.ts',
  'mcp/index': 'src/mcp/index.ts',
};
// The ESM build adds the CLIs (see below).
const esmEntry = { ...entry, 'reference/cli': 'src/reference/cli/cli.ts', 'mcp/cli': 'src/mcp/cli.ts' };
// The contract kit is an ESM build of its own, with `psp-reference contract` (which the CLI imports at run time):
// in the build above it would share chunks with psp-sdk, whose chunk boundaries, and so its gzipped size, moved
// (+60 B: the size budget of psp-sdk must not change for an entry it does not load). It carries its own copy of
// the client it drives.
const kitEntry = {
  'conformance/index': 'src/conformance/index.ts',
  'reference/cli-contract': 'src/reference/cli/cli-contract.ts',
};
const cjsEntry = { ...entry, 'conformance/index': kitEntry['conformance/index'] };

// The builds below run in parallel: a per-build `clean` would delete what another one just wrote, so dist/
// is emptied once, here, when the config loads.
// PSP_OUT_DIR builds elsewhere (a benchmark's private copy) without touching the dist/ that tests and others use.
const outDir = process.env.PSP_OUT_DIR ?? 'dist';
rmSync(new URL(`./${outDir}`, import.meta.url), { recursive: true, force: true });

// The client's and webhooks' dependencies are bundled into both builds:
// - CJS: ky and @noble/hashes ship ESM only; `require('psp-sdk')` would break on Node 20 without them inlined.
// - ESM: loading zod/mini's many small modules one by one is most of a cold import. Measured here (CPU time over
//   `node -e 0`, scripts/import-budget.mjs): `import('psp-sdk')` +99 ms with them external, +38 ms bundled,
//   against a 40 ms budget. Bundle size is the same either way (size-limit counts dependencies).
// zod stays a dependency for the .d.ts files.
const clientDeps = [
  'ky',
  /^ky\//,
  '@noble/hashes',
  /^@noble\/hashes\//,
  'zod',
  /^zod\//,
  'eventsource-parser',
  /^eventsource-parser\//,
];
// The reference's dependencies are bundled too, into its own chunks (scripts/check-dist.mjs keeps them out of the
// client's and webhooks' entries): `import('psp-sdk/reference')` loaded 43 files, 31 of them hono's one module per
// file, and node's loader (resolve through each package's `exports`, read, compile, link) was a third of the
// import's CPU (bench/analysis.md, "import + start + first call"). Bundled: 124 -> 55 ms of CPU (medians here).
const referenceDeps = ['hono', /^hono\//, '@hono/node-server', /^@hono\/node-server\//, 'ipaddr.js'];
// @hono/node-server imports node's modules by their bare names ('http'), which a platform-neutral build would try
// to resolve as packages: they stay external, as bare as tsup writes our own node: imports.
const nodeBuiltins: Plugin = {
  name: 'node-builtins',
  setup(build) {
    build.onResolve({ filter: /^(crypto|http|http2|stream)$/ }, (args) => ({
      path: args.path,
      external: true,
    }));
  },
};
// msw is an optional peer of psp-sdk/reference/msw, the MCP SDK of psp-sdk/mcp: never bundled.
const external = [/^node:/, 'msw', /^msw\//, /^@modelcontextprotocol\//];

// The declarations are bundled from the ones TypeScript 7 emitted (scripts/build-dist.mjs, which sets
// PSP_DECLARATIONS), not built by tsup from src/: its own declaration build runs a TypeScript 6 program over src/
// (28 of a build's 32 s of CPU here). `npm run build` runs both steps.
function declarations(entries: Record<string, string>): Options['dts'] {
  const dir = process.env.PSP_DECLARATIONS;
  if (!dir) throw new Error('tsup.config.ts: run `npm run build` (scripts/build-dist.mjs), not tsup alone');
  return {
    entry: Object.fromEntries(
      Object.entries(entries).map(([name, file]) => [name, join(dir, file.replace(/\.ts$/, '.d.ts'))]),
    ),
  };
}

// The source maps name the file and line of src/ (or of a bundled package) for every line of dist/, without a copy
// of those files' text: the text made 9 of the packed package's 13.6 MB (issue 43), and a stack trace mapped with
// `--enable-source-maps` needs the names and lines only. scripts/notices.mjs reads the maps' `sources`, not their text.
const lean = (options: BuildOptions) => {
  options.sourcesContent = false;
};

// psp-mcp's resources: the spec and the guides as they are now, put into the builds that carry src/mcp.
const define = mcpTextsDefine();

export default defineConfig([
  {
    // ESM: entries share chunks, which scripts/check-dist.mjs verifies never carry reference code into the client
    // or webhooks entries. The CLI is one of them, so it shares the reference's chunks (the bin below is a
    // shebang that imports it).
    entry: esmEntry,
    outDir,
    format: ['esm'],
    target: 'es2022',
    platform: 'neutral',
    dts: declarations(esmEntry),
    sourcemap: true,
    splitting: true,
    treeshake: true,
    noExternal: [...clientDeps, ...referenceDeps],
    // `psp-reference contract` is the kit's build (below), loaded by the CLI when it is asked for.
    external: [...external, /^\.\/cli-contract\.js$/],
    esbuildPlugins: [nodeBuiltins],
    define,
    esbuildOptions(options) {
      lean(options);
      // ipaddr.js has `main` only (CommonJS, no `exports`), which a neutral build does not read by default.
      options.mainFields = ['module', 'main'];
    },
  },
  {
    // The contract kit and its CLI subcommand, sharing chunks with each other only.
    entry: kitEntry,
    outDir,
    format: ['esm'],
    target: 'es2022',
    platform: 'neutral',
    dts: declarations({ 'conformance/index': kitEntry['conformance/index'] }),
    sourcemap: true,
    splitting: true,
    treeshake: true,
    noExternal: clientDeps,
    external,
    esbuildOptions: lean,
  },
  {
    entry: cjsEntry,
    outDir,
    format: ['cjs'],
    target: 'es2022',
    platform: 'node',
    // `import.meta.url` in CJS: the reference resolves its own dependencies (undici, for the webhook worker) from
    // where the package is installed, not from the app's cwd.
    shims: true,
    // No declaration build here: scripts/types-cjs.mjs writes the .d.cts files from the ESM build's .d.ts, the
    // same types, instead of a second TypeScript program over src/ (half of a build's CPU time).
    dts: false,
    sourcemap: true,
    splitting: false,
    treeshake: true,
    noExternal: [...clientDeps, ...referenceDeps],
    external,
    define,
    esbuildOptions: lean,
  },
  {
    // The `psp-reference` and `psp-mcp` bins: Node only, ESM (package "type": "module"). Each only imports its
    // ./cli.js, left as it is so that it loads the CLI of the ESM build above.
    entry: { 'reference/bin': 'src/reference/cli/bin.ts', 'mcp/bin': 'src/mcp/bin.ts' },
    outDir,
    format: ['esm'],
    target: 'es2022',
    platform: 'node',
    sourcemap: false,
    external: [...external, /^\.\/cli\.js$/],
    banner: { js: '#!/usr/bin/env node' },
  },
]);
