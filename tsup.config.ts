import { defineConfig } from 'tsup';

const entry = {
  index: 'src/index.ts',
  'webhooks/index': 'src/webhooks/index.ts',
  'reference/index': 'src/reference/index.ts',
  'reference/msw': 'src/reference/msw.ts',
};

// ky and @noble/hashes ship ESM only: the CJS build must bundle them or `require('psp-sdk')` breaks.
const esmOnlyDeps = ['ky', '@noble/hashes', /^@noble\/hashes\//];

export default defineConfig([
  {
    entry,
    format: ['esm'],
    target: 'es2022',
    platform: 'neutral',
    dts: { compilerOptions: { ignoreDeprecations: '6.0' } },
    sourcemap: true,
    clean: true,
    splitting: true,
    treeshake: true,
    external: [/^node:/, 'msw'],
  },
  {
    entry,
    format: ['cjs'],
    target: 'es2022',
    platform: 'node',
    dts: { compilerOptions: { ignoreDeprecations: '6.0' } },
    sourcemap: true,
    splitting: false,
    treeshake: true,
    noExternal: esmOnlyDeps,
    external: [/^node:/, 'msw'],
  },
  {
    entry: { 'reference/cli': 'src/reference/cli.ts' },
    format: ['esm'],
    target: 'es2022',
    platform: 'node',
    sourcemap: true,
    banner: { js: '#!/usr/bin/env node' },
  },
]);
