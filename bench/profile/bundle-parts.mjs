// What each dependency adds to the psp-sdk bundle (esbuild ESM min + gzip -9): the bundle with that dependency
// left external, against the whole bundle. Bundled from source: dist/ inlines the client's dependencies (see
// tsup.config.ts), so leaving one external there would change nothing.
//   node bench/profile/bundle-parts.mjs [entry=psp-sdk|psp-sdk/webhooks]

import { builtinModules } from 'node:module';
import { bundleLikeSizeLimit, gzipSize } from '../lib/bundle.mjs';
import { ROOT } from '../lib/sdk.mjs';

const entry = process.argv[2] ?? 'psp-sdk';
const SOURCES = { 'psp-sdk': 'src/index.ts', 'psp-sdk/webhooks': 'src/webhooks/index.ts' };
if (!SOURCES[entry]) {
  console.error(`entry must be one of: ${Object.keys(SOURCES).join(', ')}`);
  process.exit(2);
}
const base = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];
async function size(external) {
  const out = await bundleLikeSizeLimit({
    entryPoints: [`${ROOT}${SOURCES[entry]}`],
    external: [...base, ...external],
  });
  return gzipSize(out.outputFiles[0].contents);
}
const whole = await size([]);
console.log(`${entry}: ${(whole / 1024).toFixed(2)} KB gz`);
for (const dep of [['zod', 'zod/*'], ['ky'], ['eventsource-parser'], ['@noble/hashes', '@noble/hashes/*']]) {
  const s = await size(dep);
  console.log(`  ${dep[0].padEnd(20)} adds ${((whole - s) / 1024).toFixed(2)} KB gz`);
}
