// A CI-shaped workload: payment lives through PspClient, as a merchant's test suite drives the reference. Each
// life: create a payment, pay it on the simulator (POST /_simulator/payments/{id}/succeed), receive its
// `payment.succeeded` webhook and check it with verifyWebhook, then refund it. 10 lives at a time. Two ways, each
// a row of issue 25's table:
//   over HTTP    the reference as startReference runs it, in its own process; the client and a node:http receiver
//                run here;
//   in-process   createReference in this process, no sockets: the client's `fetch` is the reference's own
//                `ref.fetch`, and its `webhookFetch` hands each delivery to the same receiver code (msw would do
//                the same through its interceptor).
// Both raise the merchant's rate limit through the cabinet (the default 1,000 requests per second would make the
// figure the limiter's: the client waits out `Retry-After: 1`), and count the 429s they still met. The figure is
// lives per second of wall time; each way runs twice, interleaved (HTTP, in-process, HTTP, in-process), and the
// best of its two runs is reported with both.
//
// To profile: PSP_BENCH_SERVER_ARGV='--cpu-prof --cpu-prof-dir=/tmp/lives-ref' profiles the reference's process;
// run this file itself with --cpu-prof and it prints each run's window, to pass to profile/by-module.mjs.

import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { count429, emit } from '../lib/harness.mjs';
import { jsonCaller, serverExecArgv } from '../lib/reference-client.mjs';
import { importSdk } from '../lib/sdk.mjs';
import { startServer } from '../servers/spawn.mjs';
import { size } from '../lib/mode.mjs';

const LIVES = size(1000, 200, 5);
const WIDTH = 10;
/** The merchant's rate limit while measuring: far above any rate this machine reaches. */
const RAISED = { rate_limit: { limit: 1_000_000_000, window_seconds: 1 } };

const sdk = await importSdk('psp-sdk');
const hooks = await importSdk('psp-sdk/webhooks');
const reference = await importSdk('psp-sdk/reference');
if (!sdk?.PspClient || !hooks?.verifyWebhook || !reference?.createReference) {
  await emit('reference-lives', { ok: false, reason: 'no psp-sdk build' });
  process.exit(0);
}

/**
 * The merchant's side of one way to reach a reference: `receive(body, headers)` verifies a delivery (true when
 * it passes) and wakes the life waiting for that payment; `lives(n)` runs n lives, WIDTH at a time, and resolves
 * to lives per second. `call(method, path, body?)` is the admin's JSON call; `fetch` is the client's.
 */
function merchant({ facts, call, fetch }) {
  const waiting = new Map();
  const way = { secret: '', verified: 0, refused: 0, met429: 0 };
  way.receive = (body, headers) => {
    let event;
    try {
      event = hooks.verifyWebhook(body, headers, way.secret);
    } catch {
      way.refused++;
      return false;
    }
    way.verified++;
    waiting.get(event.data.id)?.();
    return true;
  };
  const psp = new sdk.PspClient({
    apiKey: facts.api_key,
    baseUrl: facts.base_url,
    fetch: (input, init) =>
      fetch(input, init).then((res) => {
        count429(res.status);
        if (res.status === 429) way.met429++;
        return res;
      }),
  });
  async function life(i) {
    const { payment } = await psp.payments.create({ amount: 150_000, order_id: `life-${i}` });
    const delivered = new Promise((resolve) => waiting.set(payment.id, resolve));
    await call('POST', `/_simulator/payments/${payment.id}/succeed`);
    await delivered;
    waiting.delete(payment.id);
    await psp.payments.refund(payment.id, { amount: 5_000 });
  }
  way.lives = async (n) => {
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: WIDTH }, async () => {
        while (next < n) await life(next++);
      }),
    );
    return n / ((performance.now() - t0) / 1000);
  };
  /** Raises the rate limit, registers the receiver at `url` and keeps its secret. */
  way.setUp = async (url) => {
    await call('PATCH', `/_cabinet/merchants/${facts.merchant_id}`, RAISED);
    const endpoint = await call('POST', `/_cabinet/shops/${facts.shop_id}/webhook-endpoints`, {
      url,
      events: ['payment.succeeded'],
    });
    way.secret = endpoint.secret;
  };
  return way;
}

// Over HTTP: the reference in its own process (servers/reference.mjs raises the limit too), a node:http receiver.
const server = await startServer('reference.mjs', ['{}'], { execArgv: serverExecArgv() });
const agent = new http.Agent({ keepAlive: true, maxSockets: WIDTH });
const admin = jsonCaller(server.facts.base_url, agent);
const overHttp = merchant({
  facts: server.facts,
  call: (method, path, body) =>
    admin(method, path, server.facts.admin_token, body === undefined ? undefined : JSON.stringify(body)),
  fetch: (input, init) => fetch(input, init),
});
const receiver = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => res.writeHead(overHttp.receive(Buffer.concat(chunks), req.headers) ? 204 : 400).end());
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
await overHttp.setUp(`http://127.0.0.1:${receiver.address().port}/hooks`);

// In-process: the same service with no socket anywhere; deliveries go to the same receiver code.
const HOOKS_URL = 'http://127.0.0.1:9/hooks'; // never dialled: webhookFetch answers it
let inProcess;
const ref = reference.createReference({
  webhookFetch: async (input, init) => {
    const delivery = new Request(input, init);
    const ok = inProcess.receive(await delivery.text(), delivery.headers);
    return new Response(null, { status: ok ? 204 : 400 });
  },
});
const BASE = 'http://ref.test';
inProcess = merchant({
  facts: { api_key: ref.api_key, merchant_id: ref.merchant_id, shop_id: ref.shop_id, base_url: BASE },
  call: async (method, path, body) => {
    const res = await ref.fetch(
      new Request(`${BASE}${path}`, {
        method,
        headers: { authorization: `Bearer ${ref.admin_token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    const text = await res.text();
    count429(res.status);
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  },
  fetch: (input, init) => ref.fetch(new Request(input, init)),
});
await inProcess.setUp(HOOKS_URL);

let result;
try {
  const ways = { http: overHttp, inProcess };
  for (const way of Object.values(ways)) await way.lives(size(50, 50, 2)); // warm-up
  const runs = { http: [], inProcess: [] };
  /** µs of process.hrtime, the clock of a .cpuprofile. */
  const us = () => Number(process.hrtime.bigint() / 1000n);
  const profiled = process.execArgv.some((a) => a.startsWith('--cpu-prof'));
  for (let r = 0; r < 2; r++)
    for (const [name, way] of Object.entries(ways)) {
      const from = us();
      runs[name].push(await way.lives(LIVES));
      if (profiled) console.error(`profile window of ${name} run ${r + 1} (µs): ${from} ${us()}`);
    }
  const row = (name) => ({
    livesPerSec: Math.max(...runs[name]),
    runs: runs[name],
    verified: ways[name].verified,
    refused: ways[name].refused,
    rateLimited429: ways[name].met429,
  });
  result = {
    ok: true,
    lives: LIVES,
    width: WIDTH,
    rateLimit: RAISED.rate_limit,
    http: row('http'),
    inProcess: row('inProcess'),
  };
  // Kept flat too: the report's issue-7 row reads the HTTP figure here.
  Object.assign(result, {
    livesPerSec: result.http.livesPerSec,
    runs: result.http.runs,
    verified: result.http.verified,
    refused: result.http.refused,
  });
  const line = (label, x) =>
    `  ${label.padEnd(12)} runs 1 and 2: ${x.runs.map((v) => v.toFixed(0)).join(' and ')} lives/s (best ${x.livesPerSec.toFixed(0)}); ` +
    `${x.verified} webhooks verified, ${x.refused} refused; 429 answers met: ${x.rateLimited429}`;
  console.error(
    `\n${LIVES} payment lives, ${WIDTH} at a time, merchant's rate limit raised to ${RAISED.rate_limit.limit.toLocaleString('en-US')}/s`,
  );
  console.error(line('over HTTP', result.http));
  console.error(line('in-process', result.inProcess));
} finally {
  receiver.close();
  agent.destroy();
  await ref.close();
  await server.stop();
}
await emit('reference-lives', result);
