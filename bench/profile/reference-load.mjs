// Profiles the reference under autocannon load: starts servers/reference.mjs with --cpu-prof, loads one route
// for a few seconds, stops it (the profile is written on exit) and prints the top functions.
//   node bench/profile/reference-load.mjs get|create [seconds] [ReferenceOptions as JSON]

import { readdirSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import autocannon from 'autocannon';
import { CREATE_INPUT_JSON } from '../lib/fixtures.mjs';
import { startServer } from '../servers/spawn.mjs';

const [what = 'get', seconds = '5', options = '{}'] = process.argv.slice(2);
const dir = '/tmp/psp-bench-prof';
rmSync(dir, { recursive: true, force: true });
const s = await startServer('reference.mjs', [options], {
  execArgv: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
});
const auth = { authorization: `Bearer ${s.facts.api_key}` };
const opts =
  what === 'get'
    ? { url: `${s.facts.base_url}/api/v1/public/payments/${s.facts.payment_id}`, headers: auth }
    : {
        url: `${s.facts.base_url}/api/v1/public/payments`,
        method: 'POST',
        body: CREATE_INPUT_JSON,
        headers: { ...auth, 'content-type': 'application/json' },
      };
const r = await autocannon({ ...opts, connections: 10, duration: Number(seconds) });
console.log(
  `${what}: ${Math.round(r['2xx'] / r.duration)} req/s, non-2xx ${r.non2xx}, p99 ${r.latency.p99} ms`,
);
await s.stop();
const file = `${dir}/${readdirSync(dir)[0]}`;
console.log(
  execFileSync(process.execPath, [new URL('./top.mjs', import.meta.url).pathname, file, '45'], {
    encoding: 'utf8',
  }),
);
