#!/usr/bin/env node
// A quick look at the cold-import budgets of issue 7, by hand (`npm run check:import-time`; not part of npm test,
// where no check may depend on time): the whole-process cost of importing an entry, over `node -e 0`.
// A guard, not a benchmark (bench/ measures properly). The machine is shared and noisy, so the figure that decides
// is CPU time (user + system, as the child process reports it at exit), which other work on the machine barely
// moves, unlike wall time, which is printed beside it for information. Variants are interleaved; the check fails
// only on a clear breach: median CPU cost over budget x MARGIN.
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

const report =
  "process.on('exit',()=>{const u=process.cpuUsage();process.stderr.write('\\ncpu-ms='+(u.user+u.system)/1000)});";

function once(code) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['-e', report + code], { cwd: root, encoding: 'utf8' });
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  const cpu = Number(/cpu-ms=([\d.]+)/.exec(r.stderr)?.[1]);
  if (r.status !== 0 || !Number.isFinite(cpu)) throw new Error(`node -e "${code}" failed:\n${r.stderr}`);
  return { wall, cpu };
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

const cpu = samples.map((s) => median(s.map((x) => x.cpu)));
const wall = samples.map((s) => median(s.map((x) => x.wall)));
let breached = false;
console.log(`cold import, median of ${RUNS} interleaved runs (node ${process.version}); CPU time decides:`);
variants.forEach((v, j) => {
  if (v.budget === undefined) {
    console.log(
      `  ${v.name.padEnd(22)} ${cpu[j].toFixed(1).padStart(6)} ms CPU  (${wall[j].toFixed(1)} ms wall)`,
    );
    return;
  }
  const cost = cpu[j] - cpu[0];
  const limit = v.budget * MARGIN;
  const ok = cost <= limit;
  if (!ok) breached = true;
  console.log(
    `  ${v.name.padEnd(22)} +${cost.toFixed(1).padStart(5)} ms CPU over baseline (+${(wall[j] - wall[0]).toFixed(1)} ms wall); budget ${v.budget} ms, fails over ${limit} ms  ${ok ? 'ok' : 'OVER BUDGET'}`,
  );
});
if (breached) {
  console.error(
    'import budget: a clear breach of the cold-import budget (bench/ has the careful measurement)',
  );
  process.exit(1);
}
