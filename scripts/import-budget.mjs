#!/usr/bin/env node
// Guards the cold-import budgets of issue 7: the whole-process cost of importing an entry, over `node -e 0`.
// The machine is shared and noisy, so this is a guard, not a benchmark (bench/ measures properly): it interleaves
// the variants and reports the median of RUNS runs each. Other work on the machine only ever adds time, so the
// check fails on a clear breach only: when even the fastest runs (min over min) exceed budget x MARGIN.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(process.env.IMPORT_BUDGET_RUNS ?? 15);
const MARGIN = Number(process.env.IMPORT_BUDGET_MARGIN ?? 1.5);

// The package imports itself by name (package.json `exports` self-reference), so this measures the built dist.
const variants = [
  { name: 'node -e 0 (baseline)', code: '0' },
  { name: 'psp-sdk/webhooks', code: "import('psp-sdk/webhooks')", budget: 10 },
  { name: 'psp-sdk', code: "import('psp-sdk')", budget: 40 },
];

for (const f of ['dist/index.js', 'dist/webhooks/index.js']) {
  if (!existsSync(`${root}/${f}`)) {
    console.error(`import budget: ${f} is missing, build first`);
    process.exit(1);
  }
}

function once(code) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['-e', code], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`node -e "${code}" failed:\n${r.stderr}`);
  return ms;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

// One warm-up round so the first sample of each variant does not pay for cold disk caches.
for (const v of variants) once(v.code);
const samples = variants.map(() => []);
for (let i = 0; i < RUNS; i++) {
  variants.forEach((v, j) => {
    samples[j].push(once(v.code));
  });
}

const base = median(samples[0]);
const baseMin = Math.min(...samples[0]);
let breached = false;
console.log(`import time, median of ${RUNS} interleaved runs (node ${process.version}):`);
variants.forEach((v, j) => {
  const m = median(samples[j]);
  const s = [...samples[j]].sort((a, b) => a - b);
  const spread = `p25-p75 ${s[Math.floor(RUNS / 4)].toFixed(1)}-${s[Math.floor((3 * RUNS) / 4)].toFixed(1)} ms`;
  if (v.budget === undefined) {
    console.log(`  ${v.name.padEnd(22)} ${m.toFixed(1).padStart(6)} ms  (${spread})`);
    return;
  }
  const cost = m - base;
  const floor = Math.min(...samples[j]) - baseMin;
  const limit = v.budget * MARGIN;
  const ok = floor <= limit;
  if (!ok) breached = true;
  console.log(
    `  ${v.name.padEnd(22)} +${cost.toFixed(1).padStart(5)} ms over baseline (fastest +${floor.toFixed(1)} ms; budget ${v.budget} ms, fails over ${limit} ms; ${spread})  ${ok ? 'ok' : 'OVER BUDGET'}`,
  );
});
if (breached) {
  console.error(
    'import budget: a clear breach of the cold-import budget (see bench/ for the careful measurement)',
  );
  process.exit(1);
}
