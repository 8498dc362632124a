// What redisDedupe adds to a webhook delivery (issue 24, point 6): createWebhookHandler on a signed 2 KB event,
// with and without `dedupe: redisDedupe(client)` on a redis-server on loopback, through node-redis and ioredis.
// A new event costs two EVALs (begin, then finish); a duplicate one (begin finds it done). Deliveries run one
// at a time, interleaved by round so that noise from neighbours hits every variant alike; the added latency is
// the p50 and p99 of each variant minus those of the handler without a store.

import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { register } from 'tsx/esm/api';
import { webhookBody } from '../lib/fixtures.mjs';
import { emit, quantile } from '../lib/harness.mjs';
import { size } from '../lib/mode.mjs';
import { importSdk } from '../lib/sdk.mjs';

const ROUNDS = size(20, 5, 1);
const PER_ROUND = size(250, 100, 10);

const webhooks = await importSdk('psp-sdk/webhooks');
const replicas = await importSdk('psp-sdk/replicas');
// The one redis-server fixture of the tests (a free loopback port, no persistence), loaded through tsx.
register();
const { haveRedis, startRedisServer } = await import('../../test/support/redis-server.ts');
if (!webhooks || !replicas || !haveRedis()) {
  await emit('webhook-dedupe', { ok: false, reason: 'no build of psp-sdk/replicas, or no redis-server' });
  process.exit(0);
}
const { createWebhookHandler, signWebhook } = webhooks;
const { redisDedupe } = replicas;

const server = await startRedisServer();
const nodeRedis = createClient({ url: server.url });
await nodeRedis.connect();
const io = new Redis(server.url);

const secret = 'whs_4f8a1c2e9b7d6a5f3e2c1b0a9f8e7d6c';
const template = JSON.parse(webhookBody(2048));
let n = 0;
const delivery = (id = `evt_bench_${++n}`) => {
  const { body, headers } = signWebhook({ ...template, id }, secret);
  return new Request('http://127.0.0.1/webhooks', { method: 'POST', body, headers });
};
const handler = (dedupe) => createWebhookHandler({ secret, dedupe, fallback: () => {} });

const variants = [
  { name: 'no store', handle: handler(undefined), fresh: true },
  { name: 'redisDedupe, node-redis, new event', handle: handler(redisDedupe(nodeRedis)), fresh: true },
  { name: 'redisDedupe, ioredis, new event', handle: handler(redisDedupe(io)), fresh: true },
  { name: 'redisDedupe, node-redis, duplicate', handle: handler(redisDedupe(nodeRedis)), fresh: false },
];
for (const v of variants) v.samples = [];
const dupId = 'evt_bench_duplicate';
await variants[3].handle(delivery(dupId));

for (let round = 0; round < ROUNDS; round++) {
  const order = variants.map((_, i) => variants[(i + round) % variants.length]);
  for (const v of order) {
    const requests = Array.from({ length: PER_ROUND }, () => delivery(v.fresh ? undefined : dupId));
    for (const request of requests) {
      const t0 = performance.now();
      const res = await v.handle(request);
      v.samples.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`${v.name}: answered ${res.status}`);
    }
  }
}

const base = variants[0];
const stats = (s) => {
  const sorted = [...s].sort((a, b) => a - b);
  return { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) };
};
const b = stats(base.samples);
const rows = variants.map((v) => {
  const s = stats(v.samples);
  return { name: v.name, p50Ms: s.p50, p99Ms: s.p99, addedP50Ms: s.p50 - b.p50, addedP99Ms: s.p99 - b.p99 };
});
console.error('\nwebhook delivery latency, one at a time (ms)');
for (const r of rows)
  console.error(
    `  ${r.name.padEnd(38)} p50 ${r.p50Ms.toFixed(3)}  p99 ${r.p99Ms.toFixed(3)}  added p50 ${r.addedP50Ms.toFixed(3)}  p99 ${r.addedP99Ms.toFixed(3)}`,
  );
await emit('webhook-dedupe', { ok: true, deliveries: ROUNDS * PER_ROUND, rows });

nodeRedis.destroy();
io.disconnect();
await server.stop();
