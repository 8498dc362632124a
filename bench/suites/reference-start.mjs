// The reference's start, as its users feel it: a test file that imports psp-sdk/reference, calls
// startReference({ port: 0 }) and makes its first call, and the psp-reference CLI (from spawn until its JSON line of
// startup facts is on stdout). Rounds interleave the two with a bare `node -e 0`, and each figure is also given
// over it, so a loaded machine shows as a spread, not a shift.
//
// Inside the in-process child, issue 25's three figures are timed apart: the import of psp-sdk/reference, the
// startReference() until it listens, and the first call (a `payments.create` over HTTP, then a second one to show
// what of the first was first-time work). The child's own fetch is warmed on a throwaway node:http server before
// the clock starts, so undici's lazy load and first connection are not charged to the reference.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { CREATE_INPUT_JSON } from '../lib/fixtures.mjs';
import { emit, summarize } from '../lib/harness.mjs';
import { BENCH, distFile, ROOT } from '../lib/sdk.mjs';
import { size } from '../lib/mode.mjs';

const rounds = size(10, 3, 1);
const entry = distFile('psp-sdk/reference');
const bin = `${ROOT}dist/reference/bin.js`;
if (!existsSync(entry) || !existsSync(bin)) {
  await emit('reference-start', { ok: false, reason: 'no psp-sdk/reference build' });
  process.exit(0);
}

/** `node -e 0`: the floor every process pays. */
function bare() {
  const t0 = performance.now();
  spawnSync(process.execPath, ['-e', '0']);
  return { wallMs: performance.now() - t0 };
}

/**
 * A process that imports the reference, starts it and creates two payments; the in-process figures are what the
 * process measured itself: `importMs`, `startMs`, `firstCallMs`, `secondCallMs` and `inProcessMs` (import + start).
 */
function inProcess() {
  const code = `import http from 'node:http';
const warm = http.createServer((_req, res) => res.end('{}'));
await new Promise((r) => warm.listen(0, '127.0.0.1', r));
await (await fetch('http://127.0.0.1:' + warm.address().port + '/', { method: 'POST', body: '{}' })).text();
await new Promise((r) => warm.close(r));
const t0 = performance.now();
const { startReference } = await import(${JSON.stringify(entry)});
const t1 = performance.now();
const ref = await startReference({ port: 0 });
const t2 = performance.now();
const create = async () => {
  const res = await fetch(ref.base_url + '/api/v1/public/payments', {
    method: 'POST',
    headers: { authorization: 'Bearer ' + ref.api_key, 'content-type': 'application/json' },
    body: ${JSON.stringify(CREATE_INPUT_JSON)},
  });
  await res.text();
  if (res.status !== 201) throw new Error('first call: ' + res.status);
};
await create();
const t3 = performance.now();
await create();
const t4 = performance.now();
process.stdout.write(JSON.stringify({ importMs: t1 - t0, startMs: t2 - t1, firstCallMs: t3 - t2, secondCallMs: t4 - t3 }));
await ref.close();`;
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: BENCH });
  if (r.status !== 0) throw new Error(`in-process start failed: ${r.stderr}`);
  const own = JSON.parse(r.stdout.toString());
  return { wallMs: performance.now() - t0, ...own, inProcessMs: own.importMs + own.startMs };
}

/** The CLI, from spawn until its JSON line; then it is stopped with SIGTERM. */
function cli() {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [bin, '--json', '--port', '0'], { cwd: BENCH });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const line = out.split('\n')[0];
      if (!out.includes('\n')) return;
      const ms = performance.now() - t0;
      try {
        JSON.parse(line);
      } catch (e) {
        reject(e);
      }
      child.kill('SIGTERM');
      child.once('exit', () => resolve({ wallMs: ms }));
    });
    child.once('error', reject);
  });
}

const variants = [
  ['node -e 0', bare],
  ['import + startReference + first call (in-process)', inProcess],
  ['psp-reference --json (until its JSON line)', cli],
];
for (const [, run] of variants) await run(); // warm the page cache
const samples = variants.map(() => []);
for (let r = 0; r < rounds; r++) {
  for (let k = 0; k < variants.length; k++) {
    const i = (k + r) % variants.length;
    samples[i].push(await variants[i][1]());
  }
}
/** The in-process child's own phases, medians over the rounds. */
const PHASES = ['importMs', 'startMs', 'firstCallMs', 'secondCallMs', 'inProcessMs'];
const rows = variants.map(([name], i) => {
  const wall = summarize(samples[i].map((s) => s.wallMs));
  const over = summarize(samples[i].map((s, r) => s.wallMs - samples[0][r].wallMs));
  const own = {};
  for (const phase of PHASES)
    if (samples[i][0][phase] !== undefined) own[phase] = summarize(samples[i].map((s) => s[phase])).median;
  return { name, wallMs: wall.median, spreadMs: (wall.p75 - wall.p25) / 2, overMs: over.median, ...own };
});
const ms = (x) => `${x.toFixed(1)} ms`;
console.error(`\nreference start (${rounds} rounds, wall ms; over node -e 0)`);
for (const r of rows)
  console.error(
    `  ${r.name.padEnd(50)} ${r.wallMs.toFixed(0).padStart(5)} ms  +${r.overMs.toFixed(0).padStart(4)}${
      r.importMs === undefined
        ? ''
        : `\n    inside the process: import ${ms(r.importMs)}, startReference ${ms(r.startMs)}, first call (payments.create) ${ms(r.firstCallMs)}, second call ${ms(r.secondCallMs)}`
    }`,
  );
await emit('reference-start', { ok: true, rounds, rows });
