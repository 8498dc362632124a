// A/B of two builds of the reference over loopback: the current snapshot against a copy with a proposed fix
// applied (bench/results/patched by default), interleaved, in requests per second of server CPU time.
//   node bench/profile/reference-ab.mjs [get|create] [patched dist folder] [rounds]

import { fileURLToPath } from 'node:url';
import { CREATE_INPUT_JSON } from '../lib/fixtures.mjs';
import { summarize } from '../lib/harness.mjs';
import { ask, startServer } from '../servers/spawn.mjs';
import { load } from '../lib/load.mjs';

const [
  what = 'get',
  patched = fileURLToPath(new URL('../results/patched', import.meta.url)),
  roundsArg = '4',
] = process.argv.slice(2);
const variants = [
  { name: 'current', env: {} },
  { name: 'patched', env: { PSP_BENCH_DIST: patched } },
];
// AB_OPTIONS: ReferenceOptions of both; AB_B_OPTIONS: of the second only (e.g. the CLI's overrideGlobalObjects).
const options = process.env.AB_OPTIONS ?? '{}';
for (const [i, v] of variants.entries()) {
  const o = i === 1 && process.env.AB_B_OPTIONS ? process.env.AB_B_OPTIONS : options;
  v.server = await startServer('reference.mjs', [o], { env: v.env });
}
const req = (f) =>
  what === 'get'
    ? {
        url: `${f.base_url}/api/v1/public/payments/${f.payment_id}`,
        headers: { authorization: `Bearer ${f.api_key}` },
      }
    : {
        url: `${f.base_url}/api/v1/public/payments`,
        method: 'POST',
        body: CREATE_INPUT_JSON,
        headers: { authorization: `Bearer ${f.api_key}`, 'content-type': 'application/json' },
      };
for (const v of variants) await load({ ...req(v.server.facts), duration: 1 });
const per = variants.map(() => []);
for (let r = 0; r < Number(roundsArg); r++) {
  for (let k = 0; k < variants.length; k++) {
    const i = (k + r) % variants.length;
    const v = variants[i];
    const c0 = await ask(v.server.child, { cmd: 'cpu' }, 'cpuMs');
    const res = await load({ ...req(v.server.facts), duration: 3 });
    const c1 = await ask(v.server.child, { cmd: 'cpu' }, 'cpuMs');
    per[i].push({ rps: res.rps, perCpu: (res.ok * 1000) / (c1 - c0) });
  }
}
for (let i = 0; i < variants.length; i++) {
  const rps = summarize(per[i].map((x) => x.rps)).median;
  const cpu = summarize(per[i].map((x) => x.perCpu)).median;
  const ratio = summarize(per[i].map((x, r) => x.perCpu / per[0][r].perCpu)).median;
  console.log(
    `${what} ${variants[i].name.padEnd(8)} ${Math.round(rps)} req/s, ${Math.round(cpu)} req/cpu-s, x${ratio.toFixed(2)}`,
  );
}
await Promise.all(variants.map((v) => v.server.stop()));
