// Reference memory per stored payment: 100,000 payments created through the public API (in-process
// reference.fetch, no sockets), heap measured after full GCs before and after. The payments are the ordinary
// creation body of the load test (228 bytes of JSON, with order_id, description, return_url and metadata) and each
// carries an Idempotency-Key, as the SDK always sends one, so the idempotency record is counted too.

import { pathToFileURL } from 'node:url';
import { CREATE_INPUT } from '../lib/fixtures.mjs';
import { count429, emit } from '../lib/harness.mjs';
import { distFile } from '../lib/sdk.mjs';
import { size } from '../lib/mode.mjs';

const COUNT = size(100_000, 20_000, 200);
const mod = await import(pathToFileURL(distFile('psp-sdk/reference')).href).catch(() => ({}));
if (typeof mod.createReference !== 'function') {
  await emit('memory', { ok: false, reason: 'psp-sdk/reference has no createReference yet' });
  process.exit(0);
}

const gc = () => {
  for (let i = 0; i < 4; i++) globalThis.gc();
};
const ref = mod.createReference({ clock: 'manual' });
const base = 'http://127.0.0.1:4010';
async function call(method, path, token, body, extra = {}) {
  const res = await ref.fetch(
    new Request(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...extra },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    { remoteAddress: '127.0.0.1' },
  );
  count429(res.status);
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}
const facts = ref; // the startup facts are on the handle
await call('PATCH', `/_cabinet/merchants/${facts.merchant_id}`, facts.admin_token, {
  rate_limit: { limit: 1_000_000_000, window_seconds: 1 },
});
// One warm-up payment so lazily built tables (schemas, compiled routes) are not charged to the payments.
await call('POST', '/api/v1/public/payments', facts.api_key, CREATE_INPUT, { 'idempotency-key': 'warm-up' });

gc();
const before = process.memoryUsage();
const t0 = performance.now();
for (let i = 0; i < COUNT; i++) {
  await call(
    'POST',
    '/api/v1/public/payments',
    facts.api_key,
    { ...CREATE_INPUT, order_id: `order-${i}` },
    { 'idempotency-key': `key-${i}` },
  );
}
const seconds = (performance.now() - t0) / 1000;
gc();
const after = process.memoryUsage();
const heapPer = (after.heapUsed - before.heapUsed) / COUNT;
const externalPer = (after.external + after.arrayBuffers - before.external - before.arrayBuffers) / COUNT;
const rssPer = (after.rss - before.rss) / COUNT;
const bytesPerPayment = heapPer + Math.max(0, externalPer);
// A reference that keeps the payments alive until here, so the GC above could not drop them.
const check = await call('GET', '/api/v1/public/payments/' + (await lastId()), facts.api_key);
async function lastId() {
  const r = await call('POST', '/api/v1/public/payments', facts.api_key, CREATE_INPUT);
  return r.payment.id;
}
await ref.close();
console.error(
  `\nmemory: ${COUNT} payments in ${seconds.toFixed(1)} s; heap ${heapPer.toFixed(0)} B + external ${externalPer.toFixed(0)} B per payment; rss ${rssPer.toFixed(0)} B`,
);
const kb = (b) => (b / 1024).toFixed(2);
await emit('memory', {
  ok: typeof check.id === 'string',
  count: COUNT,
  bytesPerPayment,
  heapPerPayment: heapPer,
  externalPerPayment: externalPer,
  rssPerPayment: rssPer,
  createsPerSec: COUNT / seconds,
  markdown: `| payments stored | heap per payment | external per payment | RSS growth per payment | creations/s in-process |
|---|---|---|---|---|
| ${COUNT.toLocaleString('en-US')} | ${kb(heapPer)} KB | ${kb(externalPer)} KB | ${kb(rssPer)} KB | ${Math.round(COUNT / seconds).toLocaleString('en-US')} |

\`createReference({ clock: 'manual' })\`, then ${COUNT.toLocaleString('en-US')} \`POST /api/v1/public/payments\` through
\`reference.fetch\` (each with its own \`Idempotency-Key\` and \`order_id\`), full GCs (\`--expose-gc\`) before
and after; the figure is the growth of the V8 heap (plus external memory) divided by the count. The goal counts
heap + external; RSS also holds freed-but-kept pages and is shown for information.`,
});
