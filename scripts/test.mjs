#!/usr/bin/env node
// `npm test`: every check of the project, in order, stopping at the first failure. Each step is also an npm script
// of its own (see package.json) so a developer can rerun one; this runner adds timings and one closing count line.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = (name) => join(root, 'node_modules', '.bin', name);
const vitestJson = (name) => join(root, 'test-output', `vitest-${name}.json`);

/** @type {Array<{ name: string, cmd: string, args: string[], json?: string }>} */
const steps = [
  { name: 'lint', cmd: bin('biome'), args: ['check', '.'] },
  { name: 'typecheck', cmd: bin('tsc'), args: ['--noEmit', '-p', 'tsconfig.json'] },
  { name: 'build', cmd: bin('tsup'), args: [] },
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
  { name: 'bundle isolation', cmd: process.execPath, args: ['scripts/check-dist.mjs'] },
  { name: 'publint', cmd: bin('publint'), args: ['--strict'] },
  { name: 'attw --pack', cmd: bin('attw'), args: ['--pack', '.', '--format', 'table-flipped'] },
  { name: 'size budgets', cmd: bin('size-limit'), args: [] },
  { name: 'typedoc (warnings fail)', cmd: bin('typedoc'), args: ['--logLevel', 'Warn'] },
  { name: 'import-time budgets', cmd: process.execPath, args: ['scripts/import-budget.mjs'] },
  { name: 'runtimes', cmd: process.execPath, args: ['scripts/ensure-runtimes.mjs'] },
  {
    name: 'package smoke (Node 20/24, Deno, Bun, types)',
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
];

function run(step) {
  return new Promise((resolve) => {
    const child = spawn(step.cmd, step.args, { cwd: root, stdio: 'inherit', env: process.env });
    child.on('error', (error) => {
      console.error(`${step.name}: ${error.message}`);
      resolve(1);
    });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
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

const only = process.argv.slice(2);
const selected = only.length ? steps.filter((s) => only.some((o) => s.name.startsWith(o))) : steps;
for (const step of selected) if (step.json) rmSync(step.json, { force: true });

const started = performance.now();
const timings = [];
let failedStep;
for (const step of selected) {
  console.log(`\n▶ ${step.name}`);
  const t0 = performance.now();
  const code = await run(step);
  timings.push({ name: step.name, seconds: (performance.now() - t0) / 1000, ok: code === 0 });
  if (code !== 0) {
    failedStep = step.name;
    break;
  }
}

const total = { passed: 0, failed: 0, skipped: 0 };
for (const step of selected) {
  const c = counts(step.json);
  total.passed += c.passed;
  total.failed += c.failed;
  total.skipped += c.skipped;
}

console.log('\nnpm test steps:');
for (const t of timings)
  console.log(`  ${t.ok ? 'ok  ' : 'FAIL'} ${t.seconds.toFixed(1).padStart(6)} s  ${t.name}`);
console.log(`  total ${((performance.now() - started) / 1000).toFixed(1)} s`);
if (failedStep) console.log(`\nFailed at: ${failedStep}`);
// One plain closing line with the test counts of both vitest runs, for whoever reads only the last line.
const failed = total.failed + (failedStep && total.failed === 0 ? 1 : 0);
console.log(
  `\ntests: ${total.passed} passed, ${failed} failed${total.skipped ? `, ${total.skipped} skipped` : ''}`,
);
process.exit(failedStep ? 1 : 0);
