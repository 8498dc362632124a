// Restore time of a reference holding 10,000 payments: the figure a merchant's CI pays per test when it isolates
// tests by restoring one snapshot (docs/testing.md). The state is built through the public API in-process (every
// payment with an Idempotency-Key; a tenth succeeded and half of those refunded), then restored again and again:
// from the document as an object (`ref.control.restore(doc)`), and over HTTP from its JSON text
// (`POST /_simulator/restore` through reference.fetch: body read, JSON parse, check, build and swap).

import { pathToFileURL } from 'node:url';
import { CREATE_INPUT } from '../lib/fixtures.mjs';
import { count429, emit } from '../lib/harness.mjs';
import { distFile } from '../lib/sdk.mjs';
import { size } from '../lib/mode.mjs';

const COUNT = size(10_000, 10_000, 100);
const ROUNDS = size(15, 5, 1);
const mod = await import(pathToFileURL(distFile('psp-sdk/reference')).href).catch(() => ({}));
const probe =
  typeof mod.createReference === 'function' ? mod.createReference({ clock: 'manual' }) : undefined;
if (typeof probe?.control?.restore !== 'function') {
  await probe?.close();
  await emit('reference-restore', { ok: false, reason: 'psp-sdk/reference has no control.restore' });
  process.exit(0);
}
await probe.close();

const ref = mod.createReference({ clock: 'manual' });
const facts = ref; // the startup facts are on the handle
const base = 'http://127.0.0.1:4010';
async function call(method, path, token, body, extra = {}) {
  const res = await ref.fetch(
    new Request(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...extra },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    }),
  );
  count429(res.status);
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}
await call('PATCH', `/_cabinet/merchants/${facts.merchant_id}`, facts.admin_token, {
  rate_limit: { limit: 1_000_000_000, window_seconds: 1 },
});
const built = performance.now();
for (let i = 0; i < COUNT; i++) {
  const { payment } = await call(
    'POST',
    '/api/v1/public/payments',
    facts.api_key,
    { ...CREATE_INPUT, order_id: `order-${i}` },
    { 'idempotency-key': `key-${i}` },
  );
  if (i % 10 === 0) {
    await ref.control.succeedPayment(payment.id);
    if (i % 20 === 0)
      await call('POST', `/api/v1/public/payments/${payment.id}/refund`, facts.api_key, { amount: 100 });
  }
}

const buildMs = performance.now() - built;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const time = async (fn) => {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
};

const doc = await ref.control.snapshot();
const text = JSON.stringify(doc);
const snapshotMs = [];
const objectMs = [];
const httpMs = [];
for (let r = 0; r < ROUNDS; r++) {
  snapshotMs.push(await time(() => ref.control.snapshot()));
  objectMs.push(await time(() => ref.control.restore(doc)));
  httpMs.push(await time(() => call('POST', '/_simulator/restore', facts.admin_token, text)));
}
const stats = ref.stats();
await ref.close();

const row = { snapshot: median(snapshotMs), object: median(objectMs), http: median(httpMs) };
console.error(
  `\nreference-restore: ${COUNT} payments (${(text.length / 2 ** 20).toFixed(1)} MiB of JSON); median of ${ROUNDS}: ` +
    `snapshot ${row.snapshot.toFixed(1)} ms, restore(doc) ${row.object.toFixed(1)} ms, POST /_simulator/restore ${row.http.toFixed(1)} ms`,
);
await emit('reference-restore', {
  ok: stats.payments === COUNT,
  count: COUNT,
  bytes: text.length,
  rounds: ROUNDS,
  snapshotMs: row.snapshot,
  restoreObjectMs: row.object,
  restoreHttpMs: row.http,
  buildMs,
  markdown: `| payments | snapshot JSON | snapshot() | restore(doc) | POST /_simulator/restore |
|---|---|---|---|---|
| ${COUNT.toLocaleString('en-US')} (+${stats.refunds} refunds, ${stats.idempotency_keys.toLocaleString('en-US')} idempotency keys) | ${(text.length / 2 ** 20).toFixed(1)} MiB | ${row.snapshot.toFixed(1)} ms | ${row.object.toFixed(1)} ms | ${row.http.toFixed(1)} ms |

Medians of ${ROUNDS} rounds, in-process (\`reference.fetch\`, no sockets). \`restore(doc)\` takes the document as an
object; \`POST /_simulator/restore\` also reads and parses its JSON text. Both check the whole document, build the
new state and swap it in. Making the same state through the API took ${(buildMs / 1000).toFixed(1)} s.`,
});
