#!/usr/bin/env node
// `npm test`: every check of the project. Every stage runs even after a failure (a failed lint must not hide
// whether Deno, Bun or Node 24 pass), each step's result is printed, and the exit code is 1 when any failed. Each
// step is also an npm script
// of its own (see package.json) so a developer can rerun one; this runner orders them, runs the independent ones
// side by side on the machine's two cores, and ends with timings and one closing count line.
//
// Usage: node scripts/test.mjs [step-name-prefix ...]   (no argument: everything)
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { binOf } from './build-dist.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = (name) => join(root, 'node_modules', '.bin', name);
const vitestJson = (name) => join(root, 'test-output', `vitest-${name}.json`);
const node = process.execPath;
// TypeScript 7, the native compiler (`typescript-native`): npm may link either it or TypeScript 6 (kept for the tools
// that load its JavaScript API) as node_modules/.bin/tsc, so its bin is found by package, as the build finds it.
const tsc = binOf('typescript-native', 'tsc');

/**
 * Stages run in order; the steps of one stage run at the same time (their output is printed whole, one step after
 * the other, as each finishes).
 * @type {Array<Array<{ name: string, cmd: string, args: string[], json?: string }>>}
 */
const defaultStages = [
  [
    { name: 'lint', cmd: bin('biome'), args: ['check', '.'] },
    // TypeScript 7 checks the same program as TypeScript 6 in about a quarter of the CPU (35 -> 10 s here).
    { name: 'typecheck', cmd: node, args: [tsc, '--noEmit', '-p', 'tsconfig.json'] },
    // No import circle under src/, type-only imports included (--transform false keeps them in the graph).
    {
      name: 'import cycles',
      cmd: bin('dpdm'),
      args: ['--no-warning', '--no-tree', '--transform', 'false', '--exit-code', 'circular:1', 'src/**/*.ts'],
    },
    // `npm run build`: openapi.json from the zod schemas first, then tsup, which bundles it into the reference.
    { name: 'build', cmd: 'npm', args: ['run', '--silent', 'build'] },
    // Network-bound (npm ci of the pinned Deno, Node 24 and Bun when missing), and needed from the next stage on:
    // test/reference/runtimes.test.ts runs the reference under Deno and Bun too.
    { name: 'runtimes', cmd: node, args: ['scripts/ensure-runtimes.mjs'] },
  ],
  // Everything else reads the build (dist/, the packed package, or both) and nothing else of the others, so it runs
  // side by side: the vitest run alone left a core idle while its files waited on sockets, timers and child
  // processes, and the package and bench smoke are mostly such waits too.
  // No timed step: cold-import time is a goal for `npm run bench` (its cold-import suite); here what an import
  // loads is checked byte for byte instead (bundle isolation and the size budgets below). A timed stage failed
  // on a loaded machine (webhooks +17.4 ms CPU against a 15 ms limit, with one busy core beside the run).
  [
    {
      name: 'unit + integration tests (coverage)',
      cmd: bin('vitest'),
      args: [
        'run',
        '--coverage',
        '--reporter=default',
        '--reporter=json',
        `--outputFile.json=${vitestJson('unit')}`,
      ],
      json: vitestJson('unit'),
    },
    { name: 'bundle isolation', cmd: node, args: ['scripts/check-dist.mjs'] },
    { name: 'publint', cmd: bin('publint'), args: ['--strict'] },
    { name: 'attw --pack', cmd: bin('attw'), args: ['--pack', '.', '--format', 'table-flipped'] },
    { name: 'size budgets', cmd: bin('size-limit'), args: [] },
    { name: 'typedoc (warnings fail)', cmd: bin('typedoc'), args: ['--logLevel', 'Warn'] },
    // Every bench suite's setup and a tiny pass of its measure on the dist/ built above (a few seconds each): a
    // suite the code outgrew fails here, not at the next full `npm run bench` (the SSE suite rotted unseen so).
    { name: 'bench smoke (every suite, tiny sizes)', cmd: node, args: ['bench/run.mjs', '--smoke'] },
    // The packed package under every runtime. It reads only dist/ and packs to a temp folder; its fresh-clone test
    // builds twice more, in clones of its own.
    {
      name: 'package smoke (Node 20/24 ESM+CJS, Deno, Bun, bin, consumer types)',
      cmd: bin('vitest'),
      args: [
        'run',
        '--config',
        'test/package/vitest.config.ts',
        '--reporter=default',
        '--reporter=json',
        `--outputFile.json=${vitestJson('package')}`,
      ],
      json: vitestJson('package'),
    },
  ],
];

// PSP_TEST_STAGES (JSON of the same shape) replaces the list: how test/scripts checks the runner itself.
const stages = process.env.PSP_TEST_STAGES ? JSON.parse(process.env.PSP_TEST_STAGES) : defaultStages;

const running = new Set();

/** Starts a step; resolves with its exit code, wall time and (when run beside others) its captured output. */
function start(step, capture) {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const child = spawn(step.cmd, step.args, {
      cwd: root,
      stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      env: capture ? { ...process.env, FORCE_COLOR: process.stdout.isTTY ? '1' : '0' } : process.env,
    });
    running.add(child);
    const chunks = [];
    if (capture) {
      child.stdout.on('data', (d) => chunks.push(d));
      child.stderr.on('data', (d) => chunks.push(d));
    }
    const done = (code) => {
      running.delete(child);
      resolve({
        step,
        code,
        seconds: (performance.now() - t0) / 1000,
        output: Buffer.concat(chunks).toString(),
      });
    };
    child.on('error', (error) => {
      chunks.push(Buffer.from(`${step.name}: ${error.message}\n`));
      done(1);
    });
    child.on('close', (code, signal) => done(code ?? (signal ? 1 : 0)));
  });
}

function counts(file) {
  if (!file || !existsSync(file)) return { passed: 0, failed: 0, skipped: 0 };
  const report = JSON.parse(readFileSync(file, 'utf8'));
  return {
    passed: report.numPassedTests ?? 0,
    failed: report.numFailedTests ?? 0,
    skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
  };
}

/** One line per failed test of a vitest JSON report (file, full name), then its first failure message lines. */
function failedTests(file) {
  if (!file || !existsSync(file)) return [];
  const report = JSON.parse(readFileSync(file, 'utf8'));
  const lines = [];
  for (const suite of report.testResults ?? []) {
    const where = relative(root, suite.name ?? '');
    const tests = (suite.assertionResults ?? []).filter((t) => t.status === 'failed');
    // A file that failed outside any test (an import error, a hook) has no failed assertion but a message.
    if (!tests.length && suite.status === 'failed') lines.push(`  ✗ ${where}`, ...excerpt(suite.message));
    for (const t of tests)
      lines.push(`  ✗ ${where} > ${t.fullName ?? t.title}`, ...excerpt((t.failureMessages ?? []).join('\n')));
  }
  return lines;
}

function excerpt(message) {
  return String(message ?? '')
    .split('\n')
    .filter((l) => l.trim())
    .slice(0, 6)
    .map((l) => `      ${l.slice(0, 200)}`);
}

// CPU seconds of every finished child (Linux: cutime + cstime of /proc/self/stat): unlike wall time, this does
// not grow when other work shares the machine, so it tells what the run costs on a quiet one.
function childCpuSeconds() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return undefined;
  }
}

const only = process.argv.slice(2);
const selected = stages
  .map((stage) => stage.filter((s) => !only.length || only.some((o) => s.name.startsWith(o))))
  .filter((stage) => stage.length);
for (const step of selected.flat()) if (step.json) rmSync(step.json, { force: true });

const started = performance.now();

const results = [];
/** Names of the failed steps, in the order they ended. */
const failed = [];
for (const stage of selected) {
  console.log(`\n▶ ${stage.map((s) => s.name).join('  |  ')}`);
  const capture = stage.length > 1;
  const pending = stage.map((s) => start(s, capture));
  // Print each step's output as soon as it ends, so a long stage still shows progress.
  await Promise.all(
    pending.map((p) =>
      p.then((r) => {
        if (capture) {
          console.log(`\n── ${r.step.name} (${r.seconds.toFixed(1)} s${r.code ? `, exit ${r.code}` : ''})`);
          process.stdout.write(r.output);
        }
        results.push(r);
        if (r.code !== 0) failed.push(r.step.name);
      }),
    ),
  );
}

const total = { passed: 0, failed: 0, skipped: 0 };
for (const step of selected.flat()) {
  const c = counts(step.json);
  total.passed += c.passed;
  total.failed += c.failed;
  total.skipped += c.skipped;
}

console.log('\nnpm test steps (wall time; steps of one stage ran side by side):');
for (const r of results)
  console.log(`  ${r.code ? 'FAIL' : 'ok  '} ${r.seconds.toFixed(1).padStart(6)} s  ${r.step.name}`);
const coverageFile = join(root, 'coverage', 'coverage-summary.json');
if (results.some((r) => r.step.name.startsWith('unit')) && existsSync(coverageFile)) {
  const t = JSON.parse(readFileSync(coverageFile, 'utf8')).total;
  console.log(
    `  coverage of src/: lines ${t.lines.pct} %, statements ${t.statements.pct} %, branches ${t.branches.pct} %, functions ${t.functions.pct} %`,
  );
}
const cpu = childCpuSeconds();
console.log(
  `  total ${((performance.now() - started) / 1000).toFixed(1)} s wall${cpu === undefined ? '' : `, ${cpu.toFixed(0)} s CPU`}`,
);
if (failed.length)
  console.log(`\nFailed (${failed.length} of ${results.length} steps): ${failed.join(', ')}`);
// CI keeps only the tail of this output, so each failed test is named here again, with the first lines of why.
for (const step of selected.flat()) for (const line of failedTests(step.json)) console.log(line);
// Every stage awaits all its steps, so nothing should still run here; if anything does, it is not left behind.
for (const child of running) child.kill('SIGTERM');
// One plain closing line with the test counts of both vitest runs; each failed step that reported no failed test
// (a lint, a build, a crashed vitest) counts as one failure.
const silent = results.filter((r) => r.code !== 0 && counts(r.step.json).failed === 0).length;
const failures = total.failed + silent;
console.log(
  `\ntests: ${total.passed} passed, ${failures} failed${total.skipped ? `, ${total.skipped} skipped` : ''}`,
);
process.exit(failed.length ? 1 : 0);
