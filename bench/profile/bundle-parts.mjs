// What each dependency adds to the psp-sdk bundle (esbuild ESM min + gzip -9): the bundle with that dependency
// left external, against the whole bundle.
//   node bench/profile/bundle-parts.mjs [entry=psp-sdk]

import { builtinModules } from 'node:module';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { BENCH, distFile } from '../lib/sdk.mjs';

const entry = process.argv[2] ?? 'psp-sdk';
const base = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];
async function size(external) {
  const out = await build({
    stdin: { contents: `export * from ${JSON.stringify(distFile(entry))};`, resolveDir: BENCH, loader: 'js' },
    bundle: true,
    write: false,
    format: 'esm',
    minify: true,
    platform: 'browser',
    target: 'es2022',
    external: [...base, ...external],
    logLevel: 'silent',
  });
  return gzipSync(out.outputFiles[0].contents, { level: 9 }).length;
}
const whole = await size([]);
console.log(`${entry}: ${(whole / 1024).toFixed(2)} KB gz`);
for (const dep of [['zod', 'zod/*'], ['ky'], ['eventsource-parser'], ['@noble/hashes', '@noble/hashes/*']]) {
  const s = await size(dep);
  console.log(`  ${dep[0].padEnd(20)} adds ${((whole - s) / 1024).toFixed(2)} KB gz`);
}
