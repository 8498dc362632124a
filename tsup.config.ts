import { rmSync } from 'node:fs';
import { defineConfig, type Options } from 'tsup';

const entry = {
  index: 'src/index.ts',
  'webhooks/index': 'src/webhooks/index.ts',
  'replicas/index': 'src/replicas/index.ts',
  'reference/index': 'src/reference/index.ts',
  'reference/msw': 'src/reference/msw.ts',
};

// The three builds below run in parallel: a per-build `clean` would delete what another one just wrote, so dist/
// is emptied once, here, when the config loads.
// PSP_OUT_DIR builds elsewhere (a benchmark's private copy) without touching the dist/ that tests and others use.
const outDir = process.env.PSP_OUT_DIR ?? 'dist';
rmSync(new URL(`./${outDir}`, import.meta.url), { recursive: true, force: true });

// The client's and webhooks' dependencies are bundled into both builds:
// - CJS: ky and @noble/hashes ship ESM only; `require('psp-sdk')` would break on Node 20 without them inlined.
// - ESM: loading zod/mini's many small modules one by one is most of a cold import. Measured here (CPU time over
//   `node -e 0`, scripts/import-budget.mjs): `import('psp-sdk')` +99 ms with them external, +38 ms bundled,
//   against a 40 ms budget. Bundle size is the same either way (size-limit counts dependencies).
// hono, @hono/node-server and ipaddr.js (reference only) stay external; zod stays a dependency for the .d.ts files.
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
// msw is an optional peer of psp-sdk/reference/msw: never bundled.
const external = [/^node:/, 'msw', /^msw\//];
const dts: Options['dts'] = { compilerOptions: { ignoreDeprecations: '6.0' } };

export default defineConfig([
  {
    // ESM: entries share chunks, which scripts/check-dist.mjs verifies never carry reference code into the client
    // or webhooks entries. The CLI is one of them, so it shares the reference's chunks (the bin below is a
    // shebang that imports it).
    entry: { ...entry, 'reference/cli': 'src/reference/cli.ts' },
    outDir,
    format: ['esm'],
    target: 'es2022',
    platform: 'neutral',
    dts,
    sourcemap: true,
    splitting: true,
    treeshake: true,
    noExternal: clientDeps,
    external,
  },
  {
    entry,
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
    noExternal: clientDeps,
    external,
  },
  {
    // The `psp-reference` bin: Node only, ESM (package "type": "module"). It only imports ./cli.js, left as it is
    // so that it loads the CLI of the ESM build above.
    entry: { 'reference/bin': 'src/reference/bin.ts' },
    outDir,
    format: ['esm'],
    target: 'es2022',
    platform: 'node',
    sourcemap: false,
    external: [...external, /^\.\/cli\.js$/],
    banner: { js: '#!/usr/bin/env node' },
  },
]);
