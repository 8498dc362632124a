// Instructions per request of a server under valgrind's callgrind: the added-CPU figure of http-load counted in
// instructions, which (unlike CPU time) the load of a shared machine hardly moves. The server runs under
// `valgrind --tool=callgrind` (Debian: apt-get install valgrind) with instrumentation off while it starts and warms
// up (`warmUp` requests), then on for `count` requests (10 connections, as http-load); the dump's total over `count`
// is its instructions per request. V8 runs single-threaded, so the garbage collector's and the compiler's work land
// in the count, whichever thread would do them. They still move it: two runs of one build read 589k and 726k
// instructions per create (whether a full collection of the old generation, which holds every payment made, or a
// recompilation falls in the window), and a forced gc() before the window made it worse (1.0-1.3M: the compiled code
// is flushed and made again inside it). Compare several runs of each build, interleaved.
// Used by bench/suites/instructions.mjs (the guard `npm run bench` reports) and bench/profile/instructions.mjs.

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import autocannon from 'autocannon';
import { CREATE_INPUT_JSON } from './fixtures.mjs';
import { startServer } from '../servers/spawn.mjs';

/** Whether valgrind and callgrind_control are on this machine. */
export const hasCallgrind = () =>
  spawnSync('valgrind', ['--version']).status === 0 &&
  spawnSync('callgrind_control', ['-h']).error === undefined;

/** The request `what` ('create' or 'get') names, against the server's facts. */
function request(what, f) {
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
}

const load = (what, f, amount) =>
  new Promise((resolve, reject) =>
    autocannon({ ...request(what, f), amount, connections: 10, pipelining: 1, timeout: 120 }, (err, r) =>
      err ? reject(err) : resolve(r),
    ),
  );

/**
 * Starts `servers/<script>` under callgrind and returns `{ name, perRequest, failed }`: instructions per request of
 * `what` over `count` requests after `warmUp` uncounted ones (`failed`: requests that got no 2xx, still counted).
 */
export async function measureInstructions({ name, script, args = [], env, what, count, warmUp }) {
  const out = `/tmp/psp-bench-callgrind-${process.pid}-${Date.now()}`;
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
      '--quiet',
      '--tool=callgrind',
      '--smc-check=all-non-file',
      '--instr-atstart=no',
      `--callgrind-out-file=${out}/cg.%p`,
    ],
  });
  try {
    const pid = String(s.child.pid);
    await load(what, s.facts, warmUp); // the JIT's warm-up, uncounted
    execFileSync('callgrind_control', ['-i', 'on', pid], { stdio: 'ignore' });
    execFileSync('callgrind_control', ['-z', pid], { stdio: 'ignore' });
    const r = await load(what, s.facts, count);
    execFileSync('callgrind_control', ['-d', pid], { stdio: 'ignore' });
    await s.stop();
    const dump = readdirSync(out).find((f) => /^cg\.\d+\.\d+$/.test(f));
    const text = readFileSync(`${out}/${dump}`, 'utf8');
    const total = Number(/^(?:summary|totals): (\d+)/m.exec(text)?.[1]);
    return { name, perRequest: total / count, failed: count - r['2xx'] };
  } finally {
    await s.stop();
    rmSync(out, { recursive: true, force: true });
  }
}
