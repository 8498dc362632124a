// `npm run bench`: installs the bench project if needed, builds psp-sdk if dist/ is missing or older than its
// sources, snapshots the build, runs every suite in its own process (bounded in time), and writes
// docs/benchmarks.md from the results.
//
//   node bench/run.mjs                  everything (about 4 minutes on 2 cores)
//   node bench/run.mjs --quick          fewer rounds, shorter runs: a smoke test of the harness (about 2 minutes)
//   node bench/run.mjs --smoke          what `npm test` runs: every suite's setup and a tiny pass of each measure (a few
//                                       seconds a suite) on the dist/ that is there; fails when a suite fails, writes
//                                       no report and no results
//   node bench/run.mjs client http-load only these suites; the report keeps the other suites' last results
//   node bench/run.mjs --no-build       measure the dist/ that is there
//
// The last thing it prints is issue 25's table with this run's figures (bench/lib/goals.mjs).

import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { BENCH, ROOT, SNAPSHOT } from './lib/sdk.mjs';

const args = process.argv.slice(2);
const smoke = args.includes('--smoke');
const quick = !smoke && args.includes('--quick');
const noBuild = smoke || args.includes('--no-build');

/** Suites in run order, with a hard time limit each (a suite that overruns is killed and reported as such). */
const SUITES = [
  { name: 'bundle-size', limitS: 60 },
  { name: 'cold-import', limitS: 180 },
  { name: 'webhook-verify', limitS: 90 },
  { name: 'webhook-dedupe', limitS: 90 },
  { name: 'client', limitS: 300 }, // 53 s quiet; 182 s at load 15 (2026-11-26), so 200 s stopped it
  { name: 'reference-start', limitS: 120 },
  { name: 'http-load', limitS: 180 },
  { name: 'reference-lives', limitS: 180 },
  { name: 'memory', limitS: 120 },
  { name: 'sse-fanout', limitS: 120 },
  { name: 'webhook-delivery', limitS: 120 },
  { name: 'reference-restore', limitS: 120 },
  { name: 'prism', limitS: 180 },
  { name: 'readiness', limitS: 300 },
  // Four servers under valgrind per round, three rounds: about 5 minutes idle.
  { name: 'instructions', limitS: 900 },
];
/** A suite's limit in --smoke mode: far above its few seconds, so only a hang (or a full-size run) meets it. */
const SMOKE_LIMIT_S = 90;
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

const t0 = performance.now();

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

// --smoke measures nothing: it reads dist/ in place (the build npm test made), without the wait and the copy.
let built = smoke && complete(join(ROOT, 'dist'));
if (smoke && !built) throw new Error('--smoke needs a complete dist/: run `npm run build` first');
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
      [
        '--expose-gc',
        join(BENCH, 'suites', `${name}.mjs`),
        ...(quick ? ['--quick'] : []),
        ...(smoke ? ['--smoke'] : []),
      ],
      {
        cwd: BENCH,
        stdio: ['ignore', 'inherit', 'inherit'],
        env: smoke ? { ...process.env, PSP_BENCH_DIST: join(ROOT, 'dist') } : process.env,
      },
    );
    const limit = smoke ? SMOKE_LIMIT_S : limitS;
    const timer = setTimeout(() => {
      console.error(`${name}: over ${limit} s, stopped`);
      child.kill('SIGKILL');
    }, limit * 1000);
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

// 4. The report (not for --smoke, whose figures mean nothing).
const failed = outcomes.filter((o) => !o.ok).map((o) => o.name);
if (smoke) {
  console.error(
    `bench smoke: ${outcomes.length - failed.length}/${outcomes.length} suites ran in ${((performance.now() - t0) / 1000).toFixed(0)} s${failed.length ? `; FAILED: ${failed.join(', ')}` : ''}`,
  );
  process.exit(failed.length ? 1 : 0);
}
const { writeReport } = await import('./lib/report.mjs');
const file = await writeReport({ started, finished: new Date(), quick, outcomes });
console.error(`wrote ${file}`);
console.error(`wrote ${await (await import('./chart.mjs')).writeChart(file)}`); // its ratios as an SVG chart
// Last, the one block a reader needs: issue 25's table with this run's figures (the same rows are in the report).
const { loadResults } = await import('./lib/report.mjs');
const { goalsText, issue25Rows } = await import('./lib/goals.mjs');
console.error(`\n${goalsText(issue25Rows(loadResults(), started))}`);
if (outcomes.some((o) => !o.ok)) process.exitCode = 1;
