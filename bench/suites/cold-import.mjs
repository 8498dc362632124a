// Cold import: the whole cost of a fresh `node` process that imports one package, over a bare `node -e 0`. Every
// command is run in interleaved rounds (a, b, c, a, b, c, ...) so a noisy neighbour hits all of them alike; the
// table gives the median wall time and the median of per-round differences to `node -e 0`.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { build } from 'esbuild';
import { emit, summarize } from '../lib/harness.mjs';
import { BENCH, distFile } from '../lib/sdk.mjs';
import { SMOKE, size } from '../lib/mode.mjs';

const rounds = size(15, 5, 1);

// Each import runs as an ES module from the bench folder, so bare names resolve to bench/node_modules the way a
// user's app resolves them. A use of the import keeps it honest (it must have loaded and evaluated).
// Each process also reports its own CPU time (user + system, bootstrap included) on exit: CPU time is far steadier
// than wall time on a shared machine, where a process may wait for a core.
const REPORT =
  "process.on('exit',()=>{const u=process.cpuUsage();process.stdout.write(String((u.user+u.system)/1000))});";
const esm = (code) => ['--input-type=module', '-e', `${REPORT}${code}`];
const commands = [
  { name: 'node -e 0', group: 'limit', args: ['-e', `${REPORT}0`] },
  { name: 'node (ESM) empty module', group: 'limit', args: esm('') },
  { name: 'stripe', group: 'peer', args: esm("import Stripe from 'stripe'; new Stripe('sk_test_x');") },
  { name: 'openai', group: 'peer', args: esm("import OpenAI from 'openai'; new OpenAI({ apiKey: 'x' });") },
  { name: 'ky', group: 'peer', args: esm("import ky from 'ky'; ky.create({});") },
  {
    name: 'zod (classic)',
    group: 'peer',
    args: esm("import * as z from 'zod'; z.object({ a: z.string() });"),
  },
  {
    name: 'zod/mini',
    group: 'peer',
    args: esm("import * as z from 'zod/mini'; z.object({ a: z.string() });"),
  },
  {
    name: 'standardwebhooks',
    group: 'peer',
    args: esm("import { Webhook } from 'standardwebhooks'; new Webhook('c2VjcmV0');"),
  },
  {
    name: 'openapi-fetch',
    group: 'peer',
    args: esm("import createClient from 'openapi-fetch'; createClient({});"),
  },
];
for (const [entry, name] of [
  ['psp-sdk', 'psp-sdk'],
  ['psp-sdk/webhooks', 'psp-sdk/webhooks'],
  ['psp-sdk/reference', 'psp-sdk/reference'],
]) {
  const file = distFile(entry);
  if (existsSync(file)) {
    commands.push({
      name,
      group: 'ours',
      args: esm(`import * as m from ${JSON.stringify(file)}; Object.keys(m);`),
    });
  }
}

// A reference point for the client's import cost: the same dist/index.js with whatever it still imports
// bundled into one file by esbuild. Node 20's ESM loader pays per module file (ky and zod/mini are dozens of
// files each), so this is the cheapest the build can load; dist/ should stay as cheap.
if (existsSync(distFile('psp-sdk'))) {
  const out = `${BENCH}results/exp/index-deps-bundled.mjs`;
  await build({
    entryPoints: [distFile('psp-sdk')],
    bundle: true,
    format: 'esm',
    platform: 'node',
    outfile: out,
    external: ['node:*'],
    logLevel: 'error',
  });
  commands.push({
    name: 'psp-sdk as one esbuild file',
    group: 'experiment',
    args: esm(`import * as m from ${JSON.stringify(out)}; Object.keys(m);`),
  });
}

function once(args) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: BENCH, stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} failed: ${r.stderr}`);
  return { ms, cpu: Number(r.stdout.toString()) };
}

// Warm the page cache and fail early on a broken import (--smoke: its one round does that).
if (!SMOKE) for (const c of commands) once(c.args);
const times = commands.map(() => []);
const cpus = commands.map(() => []);
for (let r = 0; r < rounds; r++) {
  for (let k = 0; k < commands.length; k++) {
    const i = (k + r) % commands.length;
    const { ms, cpu } = once(commands[i].args);
    times[i].push(ms);
    cpus[i].push(cpu);
  }
}
const rows = commands.map((c, i) => {
  const t = summarize(times[i]);
  const over = summarize(times[i].map((x, r) => x - times[0][r]));
  const cpu = summarize(cpus[i]);
  const cpuOver = summarize(cpus[i].map((x, r) => x - cpus[0][r]));
  return {
    name: c.name,
    group: c.group,
    ms: t.median,
    spreadMs: (t.p75 - t.p25) / 2,
    overMs: over.median,
    overP25: over.p25,
    overP75: over.p75,
    cpuMs: cpu.median,
    cpuOverMs: cpuOver.median,
    cpuOverP25: cpuOver.p25,
    cpuOverP75: cpuOver.p75,
    rounds,
  };
});
console.error('\ncold import (wall ms, over node -e 0; CPU ms over node -e 0)');
for (const r of rows)
  console.error(
    `  ${r.name.padEnd(26)} ${r.ms.toFixed(1).padStart(7)} ms  +${r.overMs.toFixed(1).padStart(6)}   cpu +${r.cpuOverMs.toFixed(1)}`,
  );
await emit('cold-import', { rounds, rows });
