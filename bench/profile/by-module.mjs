// Summarises a V8 .cpuprofile by module rather than by function: each sample's self time goes to the source file
// of its function (a bundled dist/ chunk is mapped back through esbuild's `// src/...` and `// node_modules/...`
// comments), node's own code to one line per kind (ESM loading, CommonJS loading, other internals), and the rest
// (GC, idle, program) by name; shares are of samples (see below). With `from` and `to` (µs of process.hrtime, as bench/profile/reference-start.mjs
// prints them) only the samples of that window count: one phase of a run.
//
//   node bench/profile/by-module.mjs <file.cpuprofile> [rows=25] [from to]

import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const [file, rowsArg = '25', from, to] = process.argv.slice(2);
const p = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));

/** For each bundled file: the lines where each source module starts, from esbuild's comments. */
const starts = new Map();
function moduleAt(url, line) {
  if (!starts.has(url)) {
    const path = url.startsWith('file://') ? fileURLToPath(url) : url;
    const marks = [];
    if (existsSync(path))
      readFileSync(path, 'utf8')
        .split('\n')
        .forEach((text, i) => {
          const m = /^\/\/ ((?:src|node_modules)\/\S+)$/.exec(text);
          if (m) marks.push([i, m[1]]);
        });
    starts.set(url, marks);
  }
  let found;
  for (const [at, name] of starts.get(url)) if (at <= line) found = name;
  return found;
}

function moduleOf(node) {
  const { url, functionName, lineNumber } = node.callFrame;
  if (!url) return `(${functionName || 'native'})`.replace(/^\(\((.*)\)\)$/, '($1)');
  if (url.startsWith('node:internal/modules/esm')) return 'node: ESM loading (resolve, read, compile, link)';
  if (url.startsWith('node:internal/modules')) return 'node: CommonJS loading';
  if (url.startsWith('node:internal/deps/undici')) return 'node: undici (fetch)';
  if (url.startsWith('node:')) return `node: ${url.replace(/^node:(internal\/)?/, '').split('/')[0]}`;
  const bundled = /\/dist\//.test(url) ? moduleAt(url, lineNumber) : undefined;
  const name = bundled ?? url.replace(/^file:\/\/.*?\/node_modules\//, 'node_modules/');
  // Group a package's files: node_modules/zod/v4/core/schemas.js -> zod; hono's by its folder.
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)(\/dist)?\/([^/]+)?/.exec(name);
  if (pkg) return pkg[1] === 'hono' ? `hono/${pkg[3] ?? ''}` : pkg[1];
  return name.replace(/^file:\/\/.*\/(results\/)?dist\//, 'dist/');
}

// Shares count samples, not the time between them: on a loaded machine one gap between two samples can hold
// 100 ms the process spent waiting for a core, which summing the deltas would charge to whatever ran next. A sample
// stands for one sampling interval of CPU (the median gap, about --cpu-prof-interval).
const self = new Map();
let all = 0;
let t = p.startTime;
for (let i = 0; i < p.samples.length; i++) {
  t += p.timeDeltas[i] ?? 0;
  if (from !== undefined && (t < Number(from) || t > Number(to))) continue;
  all++;
  const m = moduleOf(byId.get(p.samples[i]));
  self.set(m, (self.get(m) ?? 0) + 1);
}
const gaps = [...p.timeDeltas].sort((a, b) => a - b);
const interval = gaps[Math.floor(gaps.length / 2)] ?? 0;
console.log(
  `${all} samples of about ${interval} µs (about ${((all * interval) / 1000).toFixed(1)} ms of CPU)${from === undefined ? '' : ` in ${from}..${to}`}`,
);
for (const [m, n] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(rowsArg)))
  console.log(
    `${((n / all) * 100).toFixed(1).padStart(6)} %  ${((n * interval) / 1000).toFixed(1).padStart(7)} ms  ${m}`,
  );
