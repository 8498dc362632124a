// Instructions per request of a server under valgrind's callgrind, against bare node:http: the added-CPU figure of
// http-load counted in instructions, which (unlike CPU time) the load of a shared machine hardly moves. Each server
// runs under `valgrind --tool=callgrind` (Debian: apt-get install valgrind) with instrumentation off while it starts
// and warms up (WARM_UP requests, default 6,000), then on for `count` requests (10 connections, as http-load); the
// dump's total over `count` is its instructions per request. V8 runs single-threaded, so the garbage collector's and
// the compiler's work land in the count, whichever thread would do them. They still move it: two runs of one build
// read 589k and 726k instructions per create (whether a full collection of the old generation, which holds every
// payment made, or a recompilation falls in the window), and a forced gc() before the window made it worse (1.0-1.3M:
// the compiled code is flushed and made again inside it). Compare several runs of each build, interleaved.
//   node bench/profile/instructions.mjs get|create [count=1500] [dist folder ...]
// With no dist folder it measures the build http-load would (bench/results/dist, else dist/). Every variant runs as
// the psp-reference CLI does (overrideGlobalObjects); AB_OPTIONS replaces those ReferenceOptions. BARE=<figure>
// reuses a bare node:http figure instead of measuring it again.

import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import autocannon from 'autocannon';
import { CREATE_INPUT_JSON } from '../lib/fixtures.mjs';
import { startServer } from '../servers/spawn.mjs';

const [what = 'create', countArg = '1500', ...dists] = process.argv.slice(2);
const count = Number(countArg);
// Fewer and the optimising compiler still runs in the counted window (a fifth of it after 1,500 creates).
const WARM_UP = Number(process.env.WARM_UP ?? 6000);
const options = process.env.AB_OPTIONS ?? '{"overrideGlobalObjects":true}';
const out = `/tmp/psp-bench-callgrind-${process.pid}`;

const request = (f) => {
  const auth = f.api_key ? { authorization: `Bearer ${f.api_key}` } : {};
  const base = `http://127.0.0.1:${f.port}`;
  return what === 'get'
    ? {
        url: `${base}/api/v1/public/payments/${f.payment_id ?? '00000000-0000-4000-8000-000000000000'}`,
        headers: auth,
      }
    : {
        url: `${base}/api/v1/public/payments`,
        method: 'POST',
        body: CREATE_INPUT_JSON,
        headers: { ...auth, 'content-type': 'application/json' },
      };
};

const load = (f, amount) =>
  new Promise((resolve, reject) =>
    autocannon({ ...request(f), amount, connections: 10, pipelining: 1, timeout: 120 }, (err, r) =>
      err ? reject(err) : resolve(r),
    ),
  );

async function measure(name, script, args, env) {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const s = await startServer(script, args, {
    timeoutMs: 600_000,
    env,
    // V8's helper threads (concurrent marking, compilation) do work that depends on timing; on the main thread
    // the same work is counted the same way every run.
    execArgv: ['--single-threaded'],
    // JIT code is rewritten in place: valgrind must check every page that is not a file's for changes.
    wrap: [
      'valgrind',
      '--tool=callgrind',
      '--smc-check=all-non-file',
      '--instr-atstart=no',
      `--callgrind-out-file=${out}/cg.%p`,
    ],
  });
  const pid = String(s.child.pid);
  await load(s.facts, WARM_UP); // the JIT's warm-up, uncounted
  execFileSync('callgrind_control', ['-i', 'on', pid], { stdio: 'ignore' });
  execFileSync('callgrind_control', ['-z', pid], { stdio: 'ignore' });
  const r = await load(s.facts, count);
  execFileSync('callgrind_control', ['-d', pid], { stdio: 'ignore' });
  // A request that failed (a timeout of a slow valgrind run) still cost instructions: it is reported, not divided by.
  if (r['2xx'] !== count)
    console.error(
      `${name}: ${r['2xx']} of ${count} 2xx, ${r.non2xx} other, ${r.errors} errors, ${r.timeouts} timeouts`,
    );
  await s.stop();
  const dump = readdirSync(out).find((f) => /^cg\.\d+\.\d+$/.test(f));
  const text = readFileSync(`${out}/${dump}`, 'utf8');
  rmSync(out, { recursive: true, force: true });
  const total = Number(/^(?:summary|totals): (\d+)/m.exec(text)?.[1]);
  return { name, perRequest: total / count };
}

const rows = [
  process.env.BARE
    ? { name: 'bare node:http (given)', perRequest: Number(process.env.BARE) }
    : await measure('bare node:http', 'baseline.mjs', ['node-http']),
];
for (const dist of dists.length ? dists : [undefined]) {
  rows.push(
    await measure(dist ?? 'current', 'reference.mjs', [options], dist ? { PSP_BENCH_DIST: dist } : undefined),
  );
}
for (const r of rows) {
  const added =
    r === rows[0]
      ? ''
      : `  +${Math.round(r.perRequest - rows[0].perRequest).toLocaleString('en-US')} over node:http`;
  console.log(
    `${what} ${r.name.padEnd(40)} ${Math.round(r.perRequest).toLocaleString('en-US').padStart(10)} instructions/req${added}`,
  );
}
