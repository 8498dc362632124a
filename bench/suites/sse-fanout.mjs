// Reference SSE fan-out: 1,000 open event streams (one API key each: the spec allows one stream per key), then
// events one at a time; for each, the time from sending the create to the `payment.created` frame arriving on
// every stream. A terminal holds at most 100 API keys (the cabinet refuses the 101st with 409 too_many_api_keys)
// and a merchant has one terminal, so the streams are spread over merchants of 99 streams each; an event is one
// payment per merchant, created at once. Memory per stream is the server's heap + external growth
// (after full GCs) from before the streams opened to when all are open.

import http from 'node:http';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { CREATE_INPUT_JSON } from '../lib/fixtures.mjs';
import { emit, quantile } from '../lib/harness.mjs';
import { existsSync } from 'node:fs';
import { distFile } from '../lib/sdk.mjs';
import { ask, startServer } from '../servers/spawn.mjs';
import { jsonCaller, serverExecArgv } from '../lib/reference-client.mjs';
import { size } from '../lib/mode.mjs';

// The 1,000 clients: `raw` (default) reads each stream from a plain socket and finds frames with Buffer.indexOf;
// `http` is the first version (http.request, utf8 decoding, String.includes), whose own CPU per event was about
// twice the reference's after the direct-write change, so it weighed on the figure it measured.
const CLIENT = process.env.PSP_SSE_CLIENT === 'http' ? 'http' : 'raw';
const STREAMS = size(1000, 200, 150);
const EVENTS = size(40, 10, 2);

if (!existsSync(distFile('psp-sdk/reference'))) {
  await emit('sse-fanout', { ok: false, reason: 'no psp-sdk/reference build' });
  process.exit(0);
}
// PSP_BENCH_SERVER_ARGV adds node flags to the reference process (lib/reference-client.mjs), e.g. to profile it.
const server = await startServer('reference.mjs', ['{}'], { execArgv: serverExecArgv() });
const { facts } = server;
const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

const call = jsonCaller(facts.base_url, agent);

const MARKER = Buffer.from('event: payment.created');
const CONNECTED = Buffer.from(': connected');

/** Occurrences of MARKER in `buf`. */
function count(buf) {
  let n = 0;
  for (let i = buf.indexOf(MARKER); i !== -1; i = buf.indexOf(MARKER, i + MARKER.length)) n++;
  return n;
}

/** Every raw socket reads into this one buffer (`onread`): each read is scanned at once, before the next. */
const READ_BUFFER = Buffer.alloc(64 * 1024);
const EMPTY = Buffer.alloc(0);

/**
 * One stream over a plain socket: the same request as http.request sends, the status line checked, then every
 * read scanned for frames as bytes, in place (`onread`: no HTTP parser, no stream, no allocation per read). The
 * last bytes of a read are kept and scanned with the next, so a frame split across reads still counts once.
 */
function openRaw(key, seen) {
  const { hostname, port } = new URL(facts.base_url);
  const keep = MARKER.length - 1;
  return new Promise((resolve, reject) => {
    const s = { seen: 0, close: () => socket.destroy() };
    let head = Buffer.alloc(0);
    let tail = EMPTY;
    const onread = (nread, buf) => {
      const read = buf.subarray(0, nread);
      if (head) {
        head = Buffer.concat([head, read]);
        if (head.length >= 12 && !head.subarray(0, 12).equals(Buffer.from('HTTP/1.1 200')))
          return reject(new Error(`stream answered ${head.subarray(0, 12)}`));
        if (head.indexOf(CONNECTED) === -1) return;
        tail = Buffer.from(head.subarray(Math.max(0, head.length - keep)));
        head = undefined;
        return resolve(s);
      }
      let n = count(read);
      // A marker across the previous read and this one.
      if (tail.length > 0) n += count(Buffer.concat([tail, read.subarray(0, keep)]));
      if (n > 0) seen(s, n);
      // A read that ends a line ends a chunk: nothing to carry (the usual case, so usually no copy).
      tail = read[nread - 1] === 0x0a ? EMPTY : Buffer.from(read.subarray(Math.max(0, nread - keep)));
    };
    const socket = net.connect({
      port: Number(port),
      host: hostname,
      onread: { buffer: READ_BUFFER, callback: onread },
    });
    socket.setNoDelay(true);
    socket.on('error', reject);
    socket.write(
      `GET /api/v1/public/events HTTP/1.1\r\nauthorization: Bearer ${key}\r\naccept: text/event-stream\r\n` +
        `Host: ${hostname}:${port}\r\nConnection: keep-alive\r\n\r\n`,
    );
  });
}

/** One stream through http.request, as the first version of this suite read it. */
function openHttp(key, seen) {
  return new Promise((resolve, reject) => {
    const req = http.request(`${facts.base_url}/api/v1/public/events`, {
      headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
    });
    req.on('response', (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
      res.setEncoding('utf8');
      const s = { seen: 0, close: () => res.destroy() };
      let connected = false;
      res.on('data', (chunk) => {
        if (!connected && chunk.includes(': connected')) {
          connected = true;
          resolve(s);
        }
        if (chunk.includes('event: payment.created')) seen(s, 1);
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Streams per merchant: its terminal's first key creates the payments, 99 more keys read the streams. */
const STREAMS_PER_MERCHANT = 99;
const merchants = [];
const streams = [];
let result;
try {
  const keys = [];
  for (let i = 0; i < STREAMS; i += STREAMS_PER_MERCHANT) {
    const m = await call('POST', '/_cabinet/merchants', facts.admin_token, '{"name":"sse-fanout"}');
    // Each stream's opening is a request of its merchant: lift the limit so the limiter shapes nothing here.
    await call(
      'PATCH',
      `/_cabinet/merchants/${m.merchant_id}`,
      facts.admin_token,
      '{"rate_limit":{"limit":1000000000,"window_seconds":1}}',
    );
    merchants.push(m);
    for (let j = i; j < Math.min(STREAMS, i + STREAMS_PER_MERCHANT); j++) {
      const k = await call(
        'POST',
        `/_cabinet/terminals/${m.terminal_id}/api-keys`,
        facts.admin_token,
        '{"mode":"test"}',
      );
      keys.push(k.api_key);
    }
  }
  const memBefore = await ask(server.child, { cmd: 'memory' }, 'memory');

  let waiting = null; // { t0, arrivals: number[], remaining, done }
  // A stream saw `n` new `event: payment.created` frames: the one of the event being timed is an arrival.
  const seen = (s, n) => {
    if (!waiting) return;
    const now = performance.now();
    const before = s.seen;
    s.seen += n;
    if (before < waiting.index && s.seen >= waiting.index) {
      waiting.arrivals.push(now - waiting.t0);
      if (--waiting.remaining === 0) waiting.done();
    }
  };
  const open = CLIENT === 'http' ? openHttp : openRaw;
  await Promise.all(keys.map((key) => open(key, seen).then((s) => streams.push(s))));
  const memOpen = await ask(server.child, { cmd: 'memory' }, 'memory');

  const all = [];
  const reachAll = [];
  let missed = 0;
  // CPU time of the server and of this (client) process over the events: unlike latency, it does not grow when
  // other jobs take the cores, so it tells what a fan-out costs on a core of its own.
  const serverCpu0 = await ask(server.child, { cmd: 'cpu' }, 'cpuMs');
  const clientCpu0 = process.cpuUsage();
  for (let e = 1; e <= EVENTS; e++) {
    const arrivals = [];
    const finished = new Promise((done) => {
      waiting = { index: e, t0: performance.now(), arrivals, remaining: streams.length, done };
    });
    const timeout = new Promise((r) => setTimeout(r, 5000, 'timeout'));
    await Promise.all(
      merchants.map((m) => call('POST', '/api/v1/public/payments', m.api_key, CREATE_INPUT_JSON)),
    );
    const outcome = await Promise.race([finished, timeout]);
    if (outcome === 'timeout') {
      missed += streams.length - arrivals.length;
      for (const s of streams) s.seen = e; // realign the counters for the next event
    }
    all.push(...arrivals);
    reachAll.push(arrivals.length === streams.length ? Math.max(...arrivals) : Number.POSITIVE_INFINITY);
    await new Promise((r) => setTimeout(r, 20));
  }
  const serverCpuPerEvent = ((await ask(server.child, { cmd: 'cpu' }, 'cpuMs')) - serverCpu0) / EVENTS;
  const cu = process.cpuUsage(clientCpu0);
  const clientCpuPerEvent = (cu.user + cu.system) / 1000 / EVENTS;
  const clientSysPerEvent = cu.system / 1000 / EVENTS;
  all.sort((a, b) => a - b);
  reachAll.sort((a, b) => a - b);
  const heapDelta = memOpen.heapUsed - memBefore.heapUsed;
  const extDelta = memOpen.external + memOpen.arrayBuffers - memBefore.external - memBefore.arrayBuffers;
  const bytesPerStream = (heapDelta + Math.max(0, extDelta)) / STREAMS;
  const rssPerStream = (memOpen.rss - memBefore.rss) / STREAMS;
  result = {
    ok: true,
    client: CLIENT,
    streams: STREAMS,
    merchants: merchants.length,
    events: EVENTS,
    missed,
    p50Ms: quantile(all, 0.5),
    p99Ms: quantile(all, 0.99),
    maxMs: all[all.length - 1],
    allP50Ms: quantile(reachAll, 0.5),
    allP99Ms: quantile(reachAll, 0.99),
    bytesPerStream,
    rssPerStream,
    serverCpuPerEvent,
    clientCpuPerEvent,
    clientSysPerEvent,
  };
  const f = (x) => (Number.isFinite(x) ? x.toFixed(1) : 'never');
  result.markdown = `| streams | events | arrival p50 / p99 / max | all streams reached, p50 / p99 of events | missed frames | heap + external per stream | RSS per stream | server CPU per event | client CPU per event |
|---|---|---|---|---|---|---|---|---|
| ${STREAMS.toLocaleString('en-US')} | ${EVENTS} | ${f(result.p50Ms)} / ${f(result.p99Ms)} / ${f(result.maxMs)} ms | ${f(result.allP50Ms)} / ${f(result.allP99Ms)} ms | ${missed} | ${(bytesPerStream / 1024).toFixed(1)} KB | ${(rssPerStream / 1024).toFixed(1)} KB | ${f(serverCpuPerEvent)} ms | ${f(clientCpuPerEvent)} ms |

The reference runs in its own process (\`startReference\`); ${STREAMS.toLocaleString('en-US')} API keys are made
through \`POST /_cabinet/terminals/{id}/api-keys\`, on ${merchants.length} merchants of at most ${STREAMS_PER_MERCHANT} streams each
(a terminal holds at most 100 keys; each merchant's rate limit lifted), and each opens \`GET /api/v1/public/events\` on its own socket
from this process (${CLIENT === 'raw' ? 'plain sockets, frames found in the bytes with `Buffer.indexOf`' : '`http.request`, decoded to strings'}). Events then come one at a time, each one payment per merchant created at once; a frame's latency runs from
sending the creates to the \`event: payment.created\` frame reaching a stream. The clients' own parsing of ${STREAMS.toLocaleString('en-US')}
sockets in one process is inside the figure, so it is an upper bound. "CPU per event" is the CPU time the
server (and this client process) used per event, its ${merchants.length} creations included: on a machine whose cores are taken by other
jobs the latency stretches, the CPU time does not, so server + client CPU per event is what the fan-out would take
with a core each.`;
  console.error(
    `\nSSE ${STREAMS} streams: arrival p99 ${f(result.p99Ms)} ms, all reached p99 ${f(result.allP99Ms)} ms, missed ${missed}, ${(bytesPerStream / 1024).toFixed(1)} KB/stream (rss ${(rssPerStream / 1024).toFixed(1)} KB)`,
  );
} finally {
  for (const s of streams) s.close();
  agent.destroy();
  await server.stop();
}
await emit('sse-fanout', result);
