// `npm run bench`: installs the bench project if needed, builds psp-sdk if dist/ is missing or older than its
// sources, snapshots the build, runs every suite in its own process (bounded in time), and writes
// docs/benchmarks.md from the results.
//
//   node bench/run.mjs                  everything (about 4 minutes on 2 cores)
//   node bench/run.mjs --quick          fewer rounds, shorter runs: a smoke test of the harness (about 2 minutes)
//   node bench/run.mjs client http-load only these suites; the report keeps the other suites' last results
//   node bench/run.mjs --no-build       measure the dist/ that is there

import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { BENCH, ROOT, SNAPSHOT } from './lib/sdk.mjs';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const noBuild = args.includes('--no-build');

/** Suites in run order, with a hard time limit each (a suite that overruns is killed and reported as such). */
const SUITES = [
  { name: 'bundle-size', limitS: 60 },
  { name: 'cold-import', limitS: 180 },
  { name: 'webhook-verify', limitS: 90 },
  { name: 'webhook-dedupe', limitS: 90 },
  { name: 'client', limitS: 200 },
  { name: 'reference-start', limitS: 120 },
  { name: 'http-load', limitS: 180 },
  { name: 'reference-lives', limitS: 180 },
  { name: 'memory', limitS: 120 },
  { name: 'sse-fanout', limitS: 120 },
  { name: 'webhook-delivery', limitS: 120 },
  { name: 'reference-restore', limitS: 120 },
  { name: 'prism', limitS: 180 },
];
const chosen = args.filter((a) => !a.startsWith('--'));
for (const c of chosen) if (!SUITES.some((s) => s.name === c)) throw new Error(`unknown suite ${c}`);
const suites = chosen.length ? SUITES.filter((s) => chosen.includes(s.name)) : SUITES;

function sh(cmd, cmdArgs, opts = {}) {
  console.error(`$ ${cmd} ${cmdArgs.join(' ')}`);
  const r = spawnSync(cmd, cmdArgs, { cwd: ROOT, stdio: 'inherit', ...opts });
  return r.status === 0;
}

function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let m = 0;
  for (const e of readdirSync(path)) m = Math.max(m, newestMtime(join(path, e)));
  return m;
}

function oldestOf(files) {
  let m = Number.POSITIVE_INFINITY;
  for (const f of files) m = Math.min(m, existsSync(f) ? statSync(f).mtimeMs : 0);
  return m;
}

// 1. The bench's own dependencies (peers, autocannon, esbuild), from its lockfile.
const installed = join(BENCH, 'node_modules', '.package-lock.json');
if (
  !existsSync(installed) ||
  statSync(join(BENCH, 'package-lock.json')).mtimeMs > statSync(installed).mtimeMs
) {
  if (!sh('npm', ['ci', '--prefix', 'bench', '--no-audit', '--no-fund']))
    throw new Error('npm ci --prefix bench failed');
}

// 2. The build under test. Teammates build the same dist/ (tsup cleans it first), so a build is only taken once
// every entry is there and nothing under dist/ has changed for a few seconds; the copy is then checked again.
const entryFiles = ['index.js', 'webhooks/index.js', 'reference/index.js'].map((f) => join(ROOT, 'dist', f));
const sourcesAt = () =>
  Math.max(
    newestMtime(join(ROOT, 'src')),
    newestMtime(join(ROOT, 'tsup.config.ts')),
    newestMtime(join(ROOT, 'package.json')),
  );
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const complete = (dir) =>
  ['index.js', 'webhooks/index.js', 'reference/index.js'].every((f) => existsSync(join(dir, f)));

async function settledDist() {
  for (let i = 0; i < 30; i++) {
    const before = newestMtime(join(ROOT, 'dist'));
    await sleep(3000);
    if (complete(join(ROOT, 'dist')) && newestMtime(join(ROOT, 'dist')) === before) return true;
  }
  return false;
}

let built = false;
for (let attempt = 1; attempt <= 3 && !built; attempt++) {
  if (!noBuild && (!complete(join(ROOT, 'dist')) || oldestOf(entryFiles) < sourcesAt())) {
    if (!sh('npm', ['run', 'build']))
      console.error('npm run build failed (a teammate may be mid-edit): retrying');
  }
  if (!(await settledDist())) continue;
  rmSync(SNAPSHOT, { recursive: true, force: true });
  mkdirSync(SNAPSHOT, { recursive: true });
  cpSync(join(ROOT, 'dist'), SNAPSHOT, { recursive: true, filter: (src) => !src.endsWith('.map') });
  built = complete(SNAPSHOT);
}
if (!built) throw new Error('no complete build of dist/ to measure (three attempts)');

// 3. The suites, one process each.
function runSuite({ name, limitS }) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(
      process.execPath,
      ['--expose-gc', join(BENCH, 'suites', `${name}.mjs`), ...(quick ? ['--quick'] : [])],
      { cwd: BENCH, stdio: ['ignore', 'inherit', 'inherit'] },
    );
    const timer = setTimeout(() => {
      console.error(`${name}: over ${limitS} s, stopped`);
      child.kill('SIGKILL');
    }, limitS * 1000);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const seconds = (performance.now() - t0) / 1000;
      console.error(
        `${name}: ${code === 0 ? 'done' : `FAILED (${signal ?? code})`} in ${seconds.toFixed(0)} s`,
      );
      resolve({ name, ok: code === 0, seconds });
    });
  });
}

const started = new Date();
const outcomes = [];
for (const s of suites) outcomes.push(await runSuite(s));

// 4. The report.
const { writeReport } = await import('./lib/report.mjs');
const file = await writeReport({ started, finished: new Date(), quick, outcomes });
console.error(`wrote ${file}`);
if (outcomes.some((o) => !o.ok)) process.exitCode = 1;
