// A CI-shaped workload: payment lives through PspClient over loopback, as a merchant's test suite drives the
// reference. Each life: create a payment, pay it on the simulator (POST /_simulator/payments/{id}/succeed),
// receive its `payment.succeeded` webhook at a local receiver that checks it with verifyWebhook, then refund it.
// The reference runs as startReference runs it, in its own process; the client and the receiver run here, 10 lives
// at a time. The figure is lives per second of wall time, over two runs (the best is reported with both).

import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { count429, emit } from '../lib/harness.mjs';
import { jsonCaller } from '../lib/reference-client.mjs';
import { importSdk } from '../lib/sdk.mjs';
import { startServer } from '../servers/spawn.mjs';
import { size } from '../lib/mode.mjs';

const LIVES = size(1000, 200, 5);
const WIDTH = 10;

const sdk = await importSdk('psp-sdk');
const hooks = await importSdk('psp-sdk/webhooks');
if (!sdk?.PspClient || !hooks?.verifyWebhook) {
  await emit('reference-lives', { ok: false, reason: 'no psp-sdk build' });
  process.exit(0);
}

const server = await startServer('reference.mjs', ['{}']);
const { facts } = server;
const agent = new http.Agent({ keepAlive: true, maxSockets: WIDTH });
const admin = jsonCaller(facts.base_url, agent);

// The merchant's receiver: every delivery verified with the SDK's own verifyWebhook.
let secret = '';
const waiting = new Map();
let verified = 0;
let refused = 0;
const receiver = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let event;
    try {
      event = hooks.verifyWebhook(Buffer.concat(chunks), req.headers, secret);
    } catch {
      refused++;
      res.writeHead(400).end();
      return;
    }
    verified++;
    res.writeHead(204).end();
    waiting.get(event.data.id)?.();
  });
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const endpoint = await admin(
  'POST',
  `/_cabinet/shops/${facts.shop_id}/webhook-endpoints`,
  facts.admin_token,
  JSON.stringify({ url: `http://127.0.0.1:${receiver.address().port}/hooks`, events: ['payment.succeeded'] }),
);
secret = endpoint.secret;

// The merchant's rate limit is lifted by servers/reference.mjs; a 429 the client met (and retried) is counted.
const psp = new sdk.PspClient({
  apiKey: facts.api_key,
  baseUrl: facts.base_url,
  fetch: (input, init) =>
    fetch(input, init).then((res) => {
      count429(res.status);
      return res;
    }),
});

async function life(i) {
  const { payment } = await psp.payments.create({ amount: 150_000, order_id: `life-${i}` });
  const delivered = new Promise((resolve) => waiting.set(payment.id, resolve));
  await admin('POST', `/_simulator/payments/${payment.id}/succeed`, facts.admin_token);
  await delivered;
  waiting.delete(payment.id);
  await psp.payments.refund(payment.id, { amount: 5_000 });
}

async function run(n) {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: WIDTH }, async () => {
      while (next < n) await life(next++);
    }),
  );
  return n / ((performance.now() - t0) / 1000);
}

let result;
try {
  await run(size(50, 50, 2)); // warm-up
  const runs = [await run(LIVES), await run(LIVES)];
  result = { ok: true, lives: LIVES, width: WIDTH, livesPerSec: Math.max(...runs), runs, verified, refused };
  console.error(
    `\n${LIVES} payment lives, ${WIDTH} at a time: ${runs.map((r) => r.toFixed(0)).join(' and ')} lives/s; ${verified} webhooks verified, ${refused} refused`,
  );
} finally {
  receiver.close();
  agent.destroy();
  await server.stop();
}
await emit('reference-lives', result);
