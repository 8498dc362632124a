// Summarises a V8 .cpuprofile (from `node --cpu-prof`): the functions with the most self time and the most total
// time (a sample counts once for every distinct function on its stack).
//
//   node bench/profile/top.mjs <file.cpuprofile> [rows=30] [filter]

import { readFileSync } from 'node:fs';

const [file, rowsArg = '30', filter = ''] = process.argv.slice(2);
const p = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const label = (n) => {
  const cf = n.callFrame;
  const url = cf.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/(results\/)?dist\//, 'dist/');
  return `${cf.functionName || '(anonymous)'} ${url}:${cf.lineNumber + 1}`;
};
const self = new Map();
const total = new Map();
let all = 0;
for (let i = 0; i < p.samples.length; i++) {
  const dt = p.timeDeltas[i] ?? 0;
  all += dt;
  let id = p.samples[i];
  self.set(label(byId.get(id)), (self.get(label(byId.get(id))) ?? 0) + dt);
  const seen = new Set();
  while (id !== undefined) {
    const l = label(byId.get(id));
    if (!seen.has(l)) {
      seen.add(l);
      total.set(l, (total.get(l) ?? 0) + dt);
    }
    id = parent.get(id);
  }
}
const show = (title, m) => {
  console.log(`\n${title}`);
  const rows = [...m]
    .filter(([k]) => k.includes(filter))
    .sort((a, b) => b[1] - a[1])
    .slice(0, Number(rowsArg));
  for (const [k, t] of rows) console.log(`${((t / all) * 100).toFixed(1).padStart(6)} %  ${k}`);
};
show('self time', self);
show('total time', total);
