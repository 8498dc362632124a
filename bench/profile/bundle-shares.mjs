// Where the bytes of the client bundle go, per source file and per dependency: the entry bundled from source as
// size-limit bundles dist/index.js (esbuild, ESM, minified, browser), then for each input its minified bytes
// (esbuild's metafile) and its gzip share: gzip -9 of the whole minus gzip -9 of the whole with that input's
// bytes cut out (found through the source map). Shares do not add up to the whole: gzip shares repeats.
//   node bench/profile/bundle-shares.mjs [entry=src/index.ts]

import { TraceMap, eachMapping } from '@jridgewell/trace-mapping';
import { bundleLikeSizeLimit, gzipSize } from '../lib/bundle.mjs';

const entry = process.argv[2] ?? 'src/index.ts';
const out = await bundleLikeSizeLimit({
  entryPoints: [entry],
  sourcemap: 'external',
  metafile: true,
  outfile: 'bundle.js',
});
const js = out.outputFiles.find((f) => f.path.endsWith('.js')).contents;
const map = new TraceMap(out.outputFiles.find((f) => f.path.endsWith('.map')).text);
const gz = gzipSize;
const whole = gz(js);

// Byte ranges of the (single-line) output that each source produced: from one mapping to the next.
const lines = Buffer.from(js).toString('latin1').split('\n');
const lineStart = [];
for (let i = 0, at = 0; i < lines.length; i++) {
  lineStart.push(at);
  at += lines[i].length + 1;
}
const marks = [];
eachMapping(map, (m) =>
  marks.push({ at: lineStart[m.generatedLine - 1] + m.generatedColumn, source: m.source }),
);
marks.sort((a, b) => a.at - b.at);
const owner = new Array(js.length).fill(null);
for (let i = 0; i < marks.length; i++) {
  const end = i + 1 < marks.length ? marks[i + 1].at : js.length;
  for (let k = marks[i].at; k < end; k++) owner[k] = marks[i].source;
}

const group = (src) => {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(src ?? '');
  return m ? m[1] : 'src';
};
const without = (keep) => Buffer.from(js.filter((_, k) => !keep(owner[k])));
const short = (p) => (p ?? '').replace(/^.*node_modules\//, '').replace(/^(\.\.\/)+/, '');
// ky and eventsource-parser ship source maps, so the bundle's map names their TypeScript sources: match by stem.
const stem = (p) =>
  short(p)
    .replace(/\/(distribution|source|dist|src)\//, '/')
    .replace(/\.[cm]?[jt]s$/, '');

const meta = Object.entries(out.metafile.outputs).find(([k]) => k.endsWith('.js'))[1].inputs;
const rows = Object.entries(meta)
  .filter(([, v]) => v.bytesInOutput > 0)
  .map(([file, v]) => {
    const name = short(file);
    return { name, min: v.bytesInOutput, gz: whole - gz(without((s) => stem(s) === stem(file))) };
  })
  .sort((a, b) => b.gz - a.gz);

console.log(`${entry}: ${js.length} B min, ${whole} B gz (${(whole / 1000).toFixed(2)} kB)`);
const groups = new Map();
for (const r of rows) {
  const g = group(r.name.includes('/') && !r.name.startsWith('src/') ? `node_modules/${r.name}` : r.name);
  groups.set(g, (groups.get(g) ?? 0) + r.min);
}
console.log('\nby package (min B, gz share B):');
for (const [g, min] of groups) {
  const share = whole - gz(without((s) => group(s) === g));
  console.log(`  ${g.padEnd(22)} ${String(min).padStart(6)} ${String(share).padStart(6)}`);
}
console.log('\nby file (min B, gz share B):');
for (const r of rows)
  console.log(`  ${r.name.padEnd(48)} ${String(r.min).padStart(6)} ${String(r.gz).padStart(6)}`);
