// Bundle size: what an app ships when it imports the package's whole public surface, bundled by esbuild (ESM,
// minified, browser platform, tree-shaken), then gzipped at level 9. Node built-ins stay external.

import { builtinModules } from 'node:module';
import { bundleLikeSizeLimit, gzipSize } from '../lib/bundle.mjs';
import { emit } from '../lib/harness.mjs';
import { BENCH, distFile } from '../lib/sdk.mjs';
import { existsSync } from 'node:fs';
import { SMOKE } from '../lib/mode.mjs';

const external = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

/** An entry that re-exports everything: a bundler cannot drop what an app might call. */
const all = (spec) => `export * from ${JSON.stringify(spec)};`;

const zodUse = (spec) =>
  `import * as z from ${JSON.stringify(spec)}; export const S = z.object({ id: z.string(), n: z.number() });`;

const targets = [
  { name: 'stripe', group: 'peer', code: "export { default } from 'stripe';" },
  { name: 'openai', group: 'peer', code: "export { default } from 'openai';" },
  { name: 'svix', group: 'peer', code: all('svix') },
  { name: 'standardwebhooks', group: 'peer', code: all('standardwebhooks') },
  { name: 'openapi-fetch', group: 'peer', code: "export { default } from 'openapi-fetch';" },
  { name: 'ky', group: 'peer', code: "export { default } from 'ky';" },
  // zod is measured as it is used, a namespace import and one object schema: zod/mini tree-shakes to what is
  // called, classic zod keeps its whole method chain.
  { name: 'zod/mini (namespace import, one schema)', group: 'peer', code: zodUse('zod/mini') },
  { name: 'zod classic (namespace import, one schema)', group: 'peer', code: zodUse('zod') },
];
for (const entry of ['psp-sdk', 'psp-sdk/webhooks', 'psp-sdk/reference']) {
  const file = distFile(entry);
  if (existsSync(file)) targets.push({ name: entry, group: 'ours', code: all(file) });
}

const rows = [];
// --smoke: our entries and one peer (the peers' bundles take most of the suite's time).
for (const t of SMOKE ? targets.filter((x) => x.group === 'ours' || x.name === 'ky') : targets) {
  const out = await bundleLikeSizeLimit({
    stdin: { contents: t.code, resolveDir: BENCH, loader: 'js' },
    external,
    metafile: true,
  });
  const js = out.outputFiles[0].contents;
  const inputs = Object.entries(out.metafile.outputs)[0][1].inputs;
  const biggest = Object.entries(inputs)
    .map(([path, v]) => ({ path: path.replace(/^.*node_modules\//, ''), bytes: v.bytesInOutput }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 8);
  rows.push({
    name: t.name,
    group: t.group,
    minBytes: js.length,
    gzipBytes: gzipSize(js),
    biggest,
  });
}
console.error('\nbundle size (esbuild ESM min + gzip -9)');
for (const r of rows)
  console.error(
    `  ${r.name.padEnd(32)} ${(r.minBytes / 1024).toFixed(1).padStart(7)} KB min ${(r.gzipBytes / 1024).toFixed(1).padStart(6)} KB gz`,
  );
await emit('bundle-size', { rows });
