// An interleaved micro-benchmark loop for a noisy, shared 2-core machine.
//
// Why not a plain "run A for 5 s, then B for 5 s": when a neighbour wakes up halfway, B looks slower than A. Here
// every round runs each variant for a short slice, in an order that rotates from round to round, so noise hits all
// variants alike; ratios are taken per round (paired) and then the median of those ratios is reported, with the
// spread. A full GC runs before each slice (when --expose-gc is on) so one variant's garbage is not charged to the
// next one.
//
// The figure is operations per second of CPU time of this process (process.cpuUsage, user + system), not per
// second of wall time: on a machine shared with other jobs the process is often waiting for a core, and that wait
// is not the code's cost. Wall-clock ops/s are kept beside it.

import { performance } from 'node:perf_hooks';
import { SMOKE } from './mode.mjs';

let sink = 0;
/** Keeps results alive so the optimiser cannot drop the measured work. */
export function consume(value) {
  if (value === undefined || value === null) sink++;
  else if (typeof value === 'boolean') sink += value ? 1 : 2;
  else if (typeof value === 'string') sink += value.length;
  else sink += 3;
}

const gc = globalThis.gc ?? (() => {});

const cpuNow = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/**
 * Runs `fn` repeatedly until it has used about `ms` milliseconds of CPU time (or 20 x `ms` of wall time on a badly
 * overloaded machine); returns { cpu, wall } operations per second.
 */
async function slice(fn, isAsync, ms) {
  const cpu0 = cpuNow();
  const start = performance.now();
  const wallLimit = start + ms * 20;
  let nextCpuCheck = start + 5;
  let ops = 0;
  let now = start;
  // The wall clock is read every 8 calls and the (slower, a syscall) CPU clock every 5 ms of wall time: the overshoot
  // is negligible for slices of >= 100 ms, and reading a clock every call would add to operations of a microsecond.
  for (;;) {
    if (isAsync) for (let i = 0; i < 8; i++) consume(await fn());
    else for (let i = 0; i < 8; i++) consume(fn());
    ops += 8;
    now = performance.now();
    if (now >= nextCpuCheck) {
      if (cpuNow() - cpu0 >= ms || now >= wallLimit) break;
      nextCpuCheck = now + 5;
    }
  }
  const cpuMs = cpuNow() - cpu0;
  return { cpu: (ops * 1000) / Math.max(cpuMs, 0.001), wall: (ops * 1000) / (now - start) };
}

export function quantile(sorted, q) {
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/** Median, quartiles, min, max of a list of numbers. */
export function summarize(values) {
  const s = [...values].sort((a, b) => a - b);
  return {
    n: s.length,
    median: quantile(s, 0.5),
    p25: quantile(s, 0.25),
    p75: quantile(s, 0.75),
    min: s[0],
    max: s[s.length - 1],
  };
}

/**
 * Compares variants by interleaved rounds.
 *
 * @param {Array<{ name: string, fn: () => unknown, group?: string, note?: string }>} variants
 * @param {{ baseline: string, rounds?: number, sliceMs?: number, warmupMs?: number }} options
 * `baseline` names the variant all ratios are taken against (1.00).
 * @returns {Promise<Array<{ name, note, opsPerSec, usPerOp, ratio, spreadPct }>>}
 */
export async function compare(variants, options) {
  const { baseline, rounds = 12, sliceMs = 120, warmupMs = 400 } = options;
  const kinds = [];
  for (const v of variants) {
    // One call tells whether the function is async; its result is checked so a broken variant fails loudly here
    // instead of being measured at the speed of a rejected promise.
    const first = v.fn();
    const isAsync = typeof first?.then === 'function';
    if (isAsync) await first;
    kinds.push(isAsync);
  }
  for (let i = 0; i < variants.length; i++) await slice(variants[i].fn, kinds[i], warmupMs);

  const perRound = variants.map(() => []);
  const wallRound = variants.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < variants.length; k++) {
      const i = (k + r) % variants.length;
      gc();
      const { cpu, wall } = await slice(variants[i].fn, kinds[i], sliceMs);
      perRound[i].push(cpu);
      wallRound[i].push(wall);
    }
  }
  const b = variants.findIndex((v) => v.name === baseline);
  if (b < 0) throw new Error(`baseline ${baseline} is not a variant`);
  return variants.map((v, i) => {
    const ops = summarize(perRound[i]);
    const ratios = summarize(perRound[i].map((x, r) => x / perRound[b][r]));
    return {
      name: v.name,
      group: v.group,
      note: v.note,
      opsPerSec: ops.median,
      usPerOp: 1e6 / ops.median,
      wallOpsPerSec: summarize(wallRound[i]).median,
      // Half the interquartile range over the median: "+-x %" in the tables.
      spreadPct: ((ops.p75 - ops.p25) / 2 / ops.median) * 100,
      ratio: ratios.median,
      ratioP25: ratios.p25,
      ratioP75: ratios.p75,
      rounds: ops.n,
      // ops per CPU-second of each round, for pairedRatio: two variants of one round ran back to back.
      perRound: perRound[i],
    };
  });
}

/**
 * `a` against `b` round by round: the median of a's rate over b's within each round, so the noise that moves a
 * whole round (another process, a GC-heavy neighbour) cancels out. Tighter than the ratio of the two medians.
 */
export function pairedRatio(rows, a, b) {
  const ra = rows.find((r) => r.name === a)?.perRound;
  const rb = rows.find((r) => r.name === b)?.perRound;
  if (!ra || !rb) return undefined;
  const ratios = ra.map((x, r) => x / rb[r]);
  const s = summarize(ratios);
  return { median: s.median, p25: s.p25, p75: s.p75, rounds: s.n };
}

let met429 = 0;

/**
 * Counts 429 answers a suite met (`n` of them with `status`, as autocannon tallies): a suite sets the rate limit
 * it needs, and the count it prints shows whether the limiter, rather than the code measured, shaped a figure.
 */
export function count429(status, n = 1) {
  if (Number(status) === 429) met429 += n;
}

/**
 * Writes a suite's result where run.mjs collects it (not in --smoke mode, whose figures mean nothing), with the
 * count of 429s met, and prints that count for a person watching.
 */
export async function emit(suite, result) {
  console.error(`${suite}: 429 answers met: ${met429}`);
  if (result && typeof result === 'object') {
    result.rateLimited429 = met429;
    // The report marks a figure that a later partial run (`node bench/run.mjs <suites>`) did not refresh.
    result.measuredAt = new Date().toISOString();
  }
  if (SMOKE) {
    if (!result?.ok && result?.ok !== undefined) throw new Error(`${suite}: ${result.reason ?? 'not ok'}`);
    return;
  }
  const { writeFile, mkdir } = await import('node:fs/promises');
  const dir = new URL('../results/', import.meta.url);
  await mkdir(dir, { recursive: true });
  await writeFile(new URL(`${suite}.json`, dir), `${JSON.stringify(result, null, 2)}\n`);
  if (sink === -1) console.log('unreachable');
}

/** Prints a table of `compare` rows to stderr. */
export function printRows(title, rows) {
  console.error(`\n${title}`);
  for (const r of rows) {
    const ratio = r.ratio === undefined ? '' : r.ratio.toFixed(2).padStart(6);
    console.error(
      `  ${r.name.padEnd(44)} ${Math.round(r.opsPerSec).toLocaleString('en-US').padStart(12)} ops/cpu-s ` +
        `+-${r.spreadPct.toFixed(1).padStart(4)}%  ${ratio}`,
    );
  }
}
