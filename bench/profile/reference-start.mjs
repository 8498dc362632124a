// What a test file pays to get a reference: import psp-sdk/reference, startReference({ port: 0 }), the first
// payments.create over HTTP and a second one; prints each phase's wall ms. Run it under a profiler to see where
// the time goes (the proportions hold on a loaded machine, the wall figures do not):
//
//   node --cpu-prof --cpu-prof-dir=/tmp/start --cpu-prof-interval=100 bench/profile/reference-start.mjs
//   node bench/profile/top.mjs /tmp/start/*.cpuprofile 40
//   node bench/profile/by-module.mjs /tmp/start/*.cpuprofile 25 <from> <to>   (one phase: the window it prints)
//
// The fetch of this process is warmed on a throwaway node:http server first, as suites/reference-start.mjs does.

import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { CREATE_INPUT_JSON } from '../lib/fixtures.mjs';
import { distFile } from '../lib/sdk.mjs';

const warm = http.createServer((_req, res) => res.end('{}'));
await new Promise((r) => warm.listen(0, '127.0.0.1', r));
await (await fetch(`http://127.0.0.1:${warm.address().port}/`, { method: 'POST', body: '{}' })).text();
await new Promise((r) => warm.close(r));

/** µs of process.hrtime, the clock of a .cpuprofile's timestamps: each phase's window for by-module.mjs. */
const us = () => Number(process.hrtime.bigint() / 1000n);
const h0 = us();
const t0 = performance.now();
const { startReference } = await import(pathToFileURL(distFile('psp-sdk/reference')).href);
const t1 = performance.now();
const h1 = us();
const ref = await startReference({ port: 0 });
const t2 = performance.now();
const h2 = us();
const create = async () => {
  const res = await fetch(`${ref.base_url}/api/v1/public/payments`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ref.api_key}`, 'content-type': 'application/json' },
    body: CREATE_INPUT_JSON,
  });
  await res.text();
  if (res.status !== 201) throw new Error(`create: ${res.status}`);
};
await create();
const t3 = performance.now();
const h3 = us();
await create();
const t4 = performance.now();
const h4 = us();
console.log(
  `import ${(t1 - t0).toFixed(1)} ms, start ${(t2 - t1).toFixed(1)} ms, first call ${(t3 - t2).toFixed(1)} ms, second ${(t4 - t3).toFixed(1)} ms`,
);
console.log(
  `windows (µs): import ${h0} ${h1}; start ${h1} ${h2}; first call ${h2} ${h3}; second call ${h3} ${h4}`,
);
await ref.close();
