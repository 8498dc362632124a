// Reference throughput over loopback: autocannon, 10 connections, against bare node:http (the limit, 1.00), hono
// alone, and the reference (GET a payment; POST create a payment). Each server runs in its own process; autocannon
// runs here. Rounds interleave the servers and each ratio is taken within a round. Issue 25's figure is the CPU a
// request costs the reference over bare node:http, in microseconds: 1e6 / (its req per CPU-s) - 1e6 / (node:http's),
// taken within each round, the median of the rounds. (The req/s floors of issue 12 are retired: suite-speed goals
// replace them.)

import { CREATE_INPUT_JSON, PAYMENT_ID } from '../lib/fixtures.mjs';
import { emit, summarize } from '../lib/harness.mjs';
import { load as loadFor } from '../lib/load.mjs';
import { distFile } from '../lib/sdk.mjs';
import { ask, startServer } from '../servers/spawn.mjs';
import { existsSync } from 'node:fs';
import { SMOKE, size } from '../lib/mode.mjs';

const rounds = size(3, 1, 1);
const seconds = size(3, 2, 1);
// --smoke: a few requests per run, no warm-up: that each server starts and answers is what it checks.
const load = (o) =>
  loadFor({ duration: seconds, ...o, ...(SMOKE ? { amount: 20, duration: undefined } : {}) });

const servers = [
  { name: 'bare node:http', group: 'limit', ...(await startServer('baseline.mjs', ['node-http'])) },
  { name: 'hono alone', group: 'peer', ...(await startServer('baseline.mjs', ['hono'])) },
];
if (existsSync(distFile('psp-sdk/reference'))) {
  // As startReference() runs it in a test process (globals untouched), and as the psp-reference CLI runs it in its
  // own process (@hono/node-server's light global Request/Response, the library's default for a server).
  for (const [name, options] of [
    ['psp-sdk reference', '{}'],
    ['psp-sdk reference (overrideGlobalObjects)', '{"overrideGlobalObjects":true}'],
  ]) {
    try {
      servers.push({ name, group: 'ours', ...(await startServer('reference.mjs', [options])) });
    } catch (e) {
      if (SMOKE) throw e;
      console.error(`${name} not measured: ${e.message}`);
    }
  }
}

const tests = {
  get: (s) => ({
    url: `http://127.0.0.1:${s.facts.port}/api/v1/public/payments/${s.facts.payment_id ?? PAYMENT_ID}`,
    headers: s.facts.api_key ? { authorization: `Bearer ${s.facts.api_key}` } : {},
  }),
  create: (s) => ({
    url: `http://127.0.0.1:${s.facts.port}/api/v1/public/payments`,
    method: 'POST',
    body: CREATE_INPUT_JSON,
    headers: {
      'content-type': 'application/json',
      ...(s.facts.api_key ? { authorization: `Bearer ${s.facts.api_key}` } : {}),
    },
  }),
};

const results = {};
try {
  if (!SMOKE) for (const s of servers) await load({ ...tests.get(s), duration: 1 }); // JIT warm-up
  for (const [test, make] of Object.entries(tests)) {
    const runs = servers.map(() => []);
    for (let r = 0; r < rounds; r++) {
      for (let k = 0; k < servers.length; k++) {
        const i = (k + r) % servers.length;
        const cpu0 = await ask(servers[i].child, { cmd: 'cpu' }, 'cpuMs');
        const res = await load(make(servers[i]));
        res.perCpuSec = (res.ok * 1000) / ((await ask(servers[i].child, { cmd: 'cpu' }, 'cpuMs')) - cpu0);
        if (res.non2xx > 0 || res.errors > 0) {
          const what = `${servers[i].name} ${test}: ${res.non2xx} non-2xx, ${res.errors} errors`;
          if (SMOKE) throw new Error(what);
          console.error(what);
        }
        runs[i].push(res);
      }
    }
    results[test] = servers.map((s, i) => {
      const rps = summarize(runs[i].map((x) => x.rps));
      const ratio = summarize(runs[i].map((x, r) => x.rps / runs[0][r].rps));
      const perCpu = summarize(runs[i].map((x) => x.perCpuSec));
      const cpuRatio = summarize(runs[i].map((x, r) => x.perCpuSec / runs[0][r].perCpuSec));
      const addedUs = summarize(runs[i].map((x, r) => 1e6 / x.perCpuSec - 1e6 / runs[0][r].perCpuSec));
      return {
        name: s.name,
        group: s.group,
        rps: rps.median,
        spreadPct: ((rps.max - rps.min) / 2 / rps.median) * 100,
        ratio: ratio.median,
        perCpuSec: perCpu.median,
        cpuRatio: cpuRatio.median,
        addedCpuUs: addedUs.median,
        p50: summarize(runs[i].map((x) => x.p50)).median,
        p99: summarize(runs[i].map((x) => x.p99)).median,
        non2xx: runs[i].reduce((a, x) => a + x.non2xx, 0),
        errors: runs[i].reduce((a, x) => a + x.errors, 0),
      };
    });
    console.error(`\nHTTP ${test}, 10 connections`);
    for (const [i, row] of results[test].entries())
      console.error(
        `  ${row.name.padEnd(48)} ${Math.round(row.rps).toLocaleString('en-US').padStart(8)} req/s  ${row.ratio.toFixed(2)}  ` +
          `${Math.round(row.perCpuSec).toLocaleString('en-US').padStart(8)} req/cpu-s  ${row.cpuRatio.toFixed(2)}  p99 ${row.p99} ms` +
          (i === 0
            ? ''
            : `  ${row.addedCpuUs >= 0 ? '+' : ''}${row.addedCpuUs.toFixed(0)} us CPU/req over node:http`),
      );
  }
} finally {
  await Promise.all(servers.map((s) => s.stop()));
}
await emit('http-load', { rounds, seconds, connections: 10, ...results });
