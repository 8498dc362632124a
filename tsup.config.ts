import { rmSync } from 'node:fs';
import { defineConfig, type Options } from 'tsup';

const entry = {
  index: 'src/index.ts',
  'webhooks/index': 'src/webhooks/index.ts',
  'reference/index': 'src/reference/index.ts',
  'reference/msw': 'src/reference/msw.ts',
};

// The three builds below run in parallel: a per-build `clean` would delete what another one just wrote, so dist/
// is emptied once, here, when the config loads.
rmSync(new URL('./dist', import.meta.url), { recursive: true, force: true });

// ky and @noble/hashes ship ESM only: the CJS build must bundle them or `require('psp-sdk')` breaks on Node 20.
const esmOnlyDeps = ['ky', /^ky\//, '@noble/hashes', /^@noble\/hashes\//];
// msw is an optional peer of psp-sdk/reference/msw: never bundled.
const external = [/^node:/, 'msw', /^msw\//];
const dts: Options['dts'] = { compilerOptions: { ignoreDeprecations: '6.0' } };

export default defineConfig([
  {
    // ESM: dependencies stay external (the consumer's bundler dedupes them); entries share chunks, which
    // scripts/check-dist.mjs verifies never carry reference code into the client or webhooks entries.
    entry,
    format: ['esm'],
    target: 'es2022',
    platform: 'neutral',
    dts,
    sourcemap: true,
    splitting: true,
    treeshake: true,
    external,
  },
  {
    entry,
    format: ['cjs'],
    target: 'es2022',
    platform: 'node',
    dts,
    sourcemap: true,
    splitting: false,
    treeshake: true,
    noExternal: esmOnlyDeps,
    external,
  },
  {
    // The `psp-reference` bin: Node only, ESM (package "type": "module").
    entry: { 'reference/cli': 'src/reference/cli.ts' },
    format: ['esm'],
    target: 'es2022',
    platform: 'node',
    sourcemap: true,
    splitting: true,
    treeshake: true,
    external,
    banner: { js: '#!/usr/bin/env node' },
  },
]);
