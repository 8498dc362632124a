// Reference webhook delivery: how fast the reference delivers signed webhooks to a local receiver, and how much
// its public API slows down meanwhile.
//
// A backlog is built first with the service clock stopped (`clock: 'manual'`): N payments are created and
// succeeded, each sends `payment.succeeded`, and the receiver answers 503 so every delivery waits for its 10 s
// retry. Then, with autocannon reading GET /payments/{id} on 10 connections, the receiver starts accepting and the
// clock is advanced 11 s: the whole backlog falls due at once. The delivery rate is N over the time from the first
// to the last accepted delivery (each one's v2 signature checked by the receiver); the API's throughput in that
// window is compared with its throughput just before, in the same run.

import http from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { CREATE_INPUT_JSON } from '../lib/fixtures.mjs';
import { count429, emit } from '../lib/harness.mjs';
import { distFile } from '../lib/sdk.mjs';
import { ask, startServer } from '../servers/spawn.mjs';
import { jsonCaller, serverExecArgv } from '../lib/reference-client.mjs';
import { size } from '../lib/mode.mjs';

const N = size(8000, 3000, 50);
const BURSTS = size(3, 1, 1);

if (!existsSync(distFile('psp-sdk/reference'))) {
  await emit('webhook-delivery', { ok: false, reason: 'no psp-sdk/reference build' });
  process.exit(0);
}
// PSP_BENCH_SERVER_ARGV adds node flags to the reference process (lib/reference-client.mjs), e.g. to profile it.
const server = await startServer('reference.mjs', ['{"clock":"manual"}'], { execArgv: serverExecArgv() });
const receiver = await startServer('receiver.mjs');
const { facts } = server;
const agent = new http.Agent({ keepAlive: true, maxSockets: 10 });

const call = jsonCaller(facts.base_url, agent);

/**
 * CPU time (ms) of a process's main thread, from Linux's per-thread counters (10 ms ticks): the API's thread,
 * told apart from the delivery worker and V8's helper threads. NaN where /proc is missing.
 */
function mainThreadMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

/** Busy CPU time (ms) of the whole machine, all cores, from /proc/stat (everything but idle and iowait). */
function machineBusyMs() {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number);
    const busy = f.reduce((a, b) => a + b, 0) - f[3] - f[4];
    return (busy * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

/** Runs `task(i)` for i in [0, n) with `width` in flight. */
async function pool(n, width, task) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) await task(next++);
    }),
  );
}

/** autocannon GET on 10 connections for `seconds`, counting answers in 100 ms buckets of this process's clock. */
function readLoad(seconds) {
  const buckets = new Map();
  const started = performance.now();
  const inst = autocannon({
    url: `${facts.base_url}/api/v1/public/payments/${facts.payment_id}`,
    headers: { authorization: `Bearer ${facts.api_key}` },
    connections: 10,
    duration: seconds,
  });
  inst.on('response', (_c, status) => {
    count429(status);
    if (status !== 200) return;
    const b = Math.floor(performance.now() / 100);
    buckets.set(b, (buckets.get(b) ?? 0) + 1);
  });
  const done = new Promise((resolve) => inst.on('done', resolve));
  /** Answers per second between two instants of this process's clock. */
  const rate = (from, to) => {
    let n = 0;
    for (const [b, c] of buckets) if (b * 100 >= from && (b + 1) * 100 <= to) n += c;
    const span = Math.floor(to / 100) * 100 - Math.ceil(from / 100) * 100;
    return span > 0 ? (n * 1000) / span : Number.NaN;
  };
  return { done, rate, started };
}

let result;
try {
  const endpoint = await call(
    'POST',
    `/_cabinet/shops/${facts.shop_id}/webhook-endpoints`,
    facts.admin_token,
    JSON.stringify({
      url: `http://127.0.0.1:${receiver.facts.port}/webhooks`,
      events: ['payment.succeeded'],
    }),
  );
  await ask(receiver.child, { cmd: 'secret', secret: endpoint.secret }, 'secretSet');

  /** One burst: a fresh backlog of N failed first attempts, released at once under GET load. */
  async function burst() {
    // The receiver fails again and forgets the previous burst's counts.
    await ask(receiver.child, { cmd: 'fail' }, 'failing');
    const t0 = performance.now();
    await pool(N, 10, async () => {
      const { payment } = await call('POST', '/api/v1/public/payments', facts.api_key, CREATE_INPUT_JSON);
      await call('POST', `/_simulator/payments/${payment.id}/succeed`, facts.admin_token);
    });
    // Every first attempt must have been answered (503) before the burst, or the burst would mix with them.
    for (let i = 0; i < 600; i++) {
      const s = await ask(receiver.child, { cmd: 'stats' }, 'stats');
      if (s.failed >= N) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const setupSeconds = (performance.now() - t0) / 1000;

    const load = readLoad(size(10, 6, 1));
    // CPU time of the three processes (reference, receiver, this one = autocannon) over the quiet window and over
    // the burst: on 2 shared cores, what the deliveries take is what the API loses.
    const cpuAll = async () => {
      const own = process.cpuUsage();
      return {
        machine: machineBusyMs(),
        serverMain: mainThreadMs(server.child.pid),
        server: await ask(server.child, { cmd: 'cpu' }, 'cpuMs'),
        receiver: await ask(receiver.child, { cmd: 'cpu' }, 'cpuMs'),
        load: (own.user + own.system) / 1000,
        at: performance.now(),
      };
    };
    await new Promise((r) => setTimeout(r, 1000));
    const cpuQuiet = await cpuAll();
    await new Promise((r) => setTimeout(r, size(2000, 1000, 100)));
    await ask(receiver.child, { cmd: 'accept' }, 'accepting');
    const cpuBurst = await cpuAll();
    const cpu0 = cpuBurst.server;
    const burstAt = performance.now();
    await call('POST', '/_simulator/clock/advance', facts.admin_token, '{"seconds":11}');
    let stats;
    for (;;) {
      stats = await ask(receiver.child, { cmd: 'stats' }, 'stats');
      if (stats.accepted >= N || performance.now() - burstAt > 60_000) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const burstEnd = performance.now();
    // The reference's CPU time over the burst (the API load included): deliveries per CPU-second of the server is
    // what it sustains with a core of its own, however busy the shared machine is.
    const cpuEnd = await cpuAll();
    const burstCpuMs = cpuEnd.server - cpu0;
    await load.done;
    const before = load.rate(cpuQuiet.at, burstAt);
    const during = load.rate(burstAt, burstEnd);
    // The noise floor: the API's rate in the two halves of the quiet window (no delivery in either) differs by
    // this much with nothing changed, so a drop during the burst means something only beyond it.
    const mid = (cpuQuiet.at + cpuBurst.at) / 2;
    const noiseFloorPct = Math.abs(1 - load.rate(mid, cpuBurst.at) / load.rate(cpuQuiet.at, mid)) * 100;
    /** Cores each process used over a window (CPU ms per wall ms). */
    const shares = (a, b) => {
      const wall = b.at - a.at;
      return {
        reference: (b.server - a.server) / wall,
        referenceMainThread: (b.serverMain - a.serverMain) / wall,
        // Everything else the machine ran meanwhile (other people's jobs): CPU the API could not have had anyway.
        others:
          (b.machine - a.machine - (b.server - a.server) - (b.receiver - a.receiver) - (b.load - a.load)) /
          wall,
        receiver: (b.receiver - a.receiver) / wall,
        autocannon: (b.load - a.load) / wall,
      };
    };
    const deliverySeconds = (stats.lastAt - stats.firstAt) / 1000;
    const deliveriesPerSec = stats.accepted / deliverySeconds;
    const dropPct = (1 - during / before) * 100;
    const r = {
      ok: stats.accepted >= N,
      count: N,
      accepted: stats.accepted,
      badSignature: stats.badSignature,
      deliveriesPerSec,
      deliverySeconds,
      apiRpsBefore: before,
      apiRpsDuring: during,
      dropPct,
      setupSeconds,
      serverCpuSeconds: burstCpuMs / 1000,
      serverCpuShare: burstCpuMs / (burstEnd - burstAt),
      noiseFloorPct,
      coresQuiet: shares(cpuQuiet, cpuBurst),
      coresBurst: shares(cpuBurst, cpuEnd),
      loadAverage: (await import('node:os')).loadavg(),
    };
    {
      const b = r.coresBurst;
      const us = (cores) => (cores / deliveriesPerSec) * 1e6;
      // CPU per delivery beyond the API thread: the delivery worker (with V8's helper threads) and the receiver.
      r.workerUsPerDelivery = us(b.reference - b.referenceMainThread);
      r.receiverUsPerDelivery = us(b.receiver);
    }
    return r;
  }

  // Several bursts, the median reported: one burst's drop varies by 10-15 points with what else the two cores do.
  const bursts = [];
  for (let i = 0; i < BURSTS; i++) bursts.push(await burst());
  const byDrop = [...bursts].sort((x, y) => x.dropPct - y.dropPct);
  result = { ...byDrop[Math.floor((byDrop.length - 1) / 2)] };
  result.bursts = bursts.map((x) => ({
    deliveriesPerSec: x.deliveriesPerSec,
    dropPct: x.dropPct,
    noiseFloorPct: x.noiseFloorPct,
  }));
  result.ok = bursts.every((x) => x.ok);
  const stats = { accepted: result.accepted, badSignature: bursts.reduce((n, x) => n + x.badSignature, 0) };
  const {
    deliverySeconds,
    deliveriesPerSec,
    apiRpsBefore: before,
    apiRpsDuring: during,
    dropPct,
    noiseFloorPct,
    setupSeconds,
  } = result;
  const burstCpuMs = result.serverCpuSeconds * 1000;
  const burstSpanMs = burstCpuMs / result.serverCpuShare;
  const fmtCores = (c) =>
    `ref ${c.reference.toFixed(2)} (main ${c.referenceMainThread.toFixed(2)}) rcv ${c.receiver.toFixed(2)} ac ${c.autocannon.toFixed(2)} others ${c.others.toFixed(2)}`;
  const n0 = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : '-');
  const q = result.coresQuiet;
  const b = result.coresBurst;
  result.markdown = `| backlog | delivered | bad signatures | deliveries/s | API GET req/s before | during delivery | drop | noise floor | reference CPU during the burst | API thread, cores quiet -> burst | other jobs, cores quiet / burst |
|---|---|---|---|---|---|---|---|---|---|---|
| ${n0(N)} | ${n0(stats.accepted)} in ${deliverySeconds.toFixed(2)} s | ${stats.badSignature} | ${n0(deliveriesPerSec)} | ${n0(before)} | ${n0(during)} | ${Number.isFinite(dropPct) ? dropPct.toFixed(1) : '-'} % | ${noiseFloorPct.toFixed(1)} % | ${(burstCpuMs / 1000).toFixed(2)} s over ${(burstSpanMs / 1000).toFixed(2)} s (${Math.round(result.serverCpuShare * 100)} % of a core) | ${q.referenceMainThread.toFixed(2)} -> ${b.referenceMainThread.toFixed(2)} | ${q.others.toFixed(2)} / ${b.others.toFixed(2)} |

The reference (\`startReference({ clock: 'manual' })\`), the receiver (node:http, checks each v2 signature with
node:crypto) and autocannon (GET /payments/{id}, 10 connections) each run in their own process, so on 2 cores
they share the CPU: the drop includes the receiver's and autocannon's own work, an upper bound of what the
reference's delivery costs the API. The backlog is made of ${n0(N)} payments created and succeeded while the
receiver answered 503 (each delivery then waits for its 10 s retry), released at once by advancing the
service clock 11 s. The noise floor is the difference between the API's rates in the two halves of the quiet
window (no delivery in either); "other jobs" is the CPU the rest of the machine used (from /proc/stat), which
the API could not have had either. The table shows the median of ${bursts.length} bursts by drop, each with a fresh
backlog; all of them: ${bursts.map((x) => `${x.dropPct.toFixed(1)} % at ${n0(x.deliveriesPerSec)}/s`).join('; ')}.`;
  console.error(
    `\nwebhooks: ${n0(stats.accepted)}/${n0(N)} in ${deliverySeconds.toFixed(2)} s = ${n0(deliveriesPerSec)}/s; API ${n0(before)} -> ${n0(during)} req/s (${dropPct.toFixed(1)} % drop; noise floor ${noiseFloorPct.toFixed(1)} %); cores quiet ${fmtCores(result.coresQuiet)}, burst ${fmtCores(result.coresBurst)}; load ${result.loadAverage.map((x) => x.toFixed(2)).join(' ')}; bad signatures ${stats.badSignature}; setup ${setupSeconds.toFixed(0)} s; per delivery: worker+helpers ${result.workerUsPerDelivery.toFixed(0)} us, receiver ${result.receiverUsPerDelivery.toFixed(0)} us`,
  );
} finally {
  agent.destroy();
  await Promise.all([server.stop(), receiver.stop()]);
}
await emit('webhook-delivery', result);
