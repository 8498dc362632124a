// The reference's start, as its users feel it: a test file that imports psp-sdk/reference and calls
// startReference({ port: 0 }) (in-process: from the import until the server listens), and the psp-reference CLI
// (from spawn until its JSON line of startup facts is on stdout). Rounds interleave the two with a bare
// `node -e 0`, and each figure is also given over it, so a loaded machine shows as a spread, not a shift.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
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

/** A process that imports the reference and starts it; `inProcessMs` is what the process measured itself. */
function inProcess() {
  const code = `const t0 = performance.now();
const { startReference } = await import(${JSON.stringify(entry)});
const ref = await startReference({ port: 0 });
process.stdout.write(String(performance.now() - t0));
await ref.close();`;
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: BENCH });
  if (r.status !== 0) throw new Error(`in-process start failed: ${r.stderr}`);
  return { wallMs: performance.now() - t0, inProcessMs: Number(r.stdout.toString()) };
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
  ['import + startReference (in-process)', inProcess],
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
const rows = variants.map(([name], i) => {
  const wall = summarize(samples[i].map((s) => s.wallMs));
  const over = summarize(samples[i].map((s, r) => s.wallMs - samples[0][r].wallMs));
  const own =
    samples[i][0].inProcessMs === undefined ? undefined : summarize(samples[i].map((s) => s.inProcessMs));
  return {
    name,
    wallMs: wall.median,
    spreadMs: (wall.p75 - wall.p25) / 2,
    overMs: over.median,
    ...(own ? { inProcessMs: own.median } : {}),
  };
});
console.error(`\nreference start (${rounds} rounds, wall ms; over node -e 0)`);
for (const r of rows)
  console.error(
    `  ${r.name.padEnd(44)} ${r.wallMs.toFixed(0).padStart(5)} ms  +${r.overMs.toFixed(0).padStart(4)}${r.inProcessMs === undefined ? '' : `  (import + start measured inside: ${r.inProcessMs.toFixed(0)} ms)`}`,
  );
await emit('reference-start', { ok: true, rounds, rows });
