// The go-live lab's costs (issue 41): the readiness report's time over a journal of 1,000 requests and a delivery log
// of 10,000 deliveries (1,000 payments, each event delivered to 10 endpoints), and what webhook chaos costs the
// delivery path when it is off: the time to deliver the same 10,000 events with chaos off and with chaos on at rate 0
// (the draws made, nothing changed), in process, rounds interleaved.

import { pathToFileURL } from 'node:url';
import { emit } from '../lib/harness.mjs';
import { size } from '../lib/mode.mjs';
import { distFile } from '../lib/sdk.mjs';

const PAYMENTS = size(1_000, 300, 10);
const ENDPOINTS = size(10, 10, 2);
const ROUNDS = size(5, 2, 1);
const mod = await import(pathToFileURL(distFile('psp-sdk/reference')).href).catch(() => ({}));
if (
  typeof mod.createReference !== 'function' ||
  typeof mod.createReference({ clock: 'manual' }).readiness !== 'function'
) {
  await emit('readiness', { ok: false, reason: 'psp-sdk/reference has no readiness()' });
  process.exit(0);
}

/** A reference that delivered `PAYMENTS` payment.succeeded events to `ENDPOINTS` endpoints; the ms it took. */
async function world(webhookChaos) {
  const ref = mod.createReference({
    clock: 'manual',
    ...(webhookChaos ? { webhookChaos } : {}),
    webhookFetch: async () => new Response(null, { status: 204 }),
  });
  await ref.control.updateMerchant(ref.merchant_id, {
    rate_limit: { limit: 1_000_000_000, window_seconds: 1 },
  });
  const ids = [];
  for (let i = 0; i < ENDPOINTS; i++)
    ids.push((await ref.control.createWebhookEndpoint(ref.shop_id, { url: `https://shop.test/${i}` })).id);
  const t0 = performance.now();
  for (let i = 0; i < PAYMENTS; i++) {
    const res = await ref.fetch(
      new Request('http://ref.test/api/v1/public/payments', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${ref.api_key}`,
          'content-type': 'application/json',
          'idempotency-key': `o-${i}`,
        },
        body: JSON.stringify({ amount: 1000, order_id: `o-${i}` }),
      }),
    );
    const { payment } = await res.json();
    await ref.control.succeedPayment(payment.id);
  }
  // Every delivery made (the log of the last endpoint is the last to fill).
  while ((await ref.control.listDeliveries(ids.at(-1))).items.length < PAYMENTS)
    await new Promise((r) => setImmediate(r));
  return { ref, ms: performance.now() - t0 };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const off = [];
const zero = [];
let report;
for (let round = 0; round < ROUNDS; round++) {
  for (const chaos of round % 2 ? [true, false] : [false, true]) {
    const { ref, ms } = await world(chaos ? { seed: 1, duplicate: 0, reorder: 0 } : undefined);
    (chaos ? zero : off).push(ms);
    if (!chaos && !report) {
      const times = [];
      for (let i = 0; i < size(20, 5, 1); i++) {
        const t0 = performance.now();
        report = ref.readiness();
        times.push(performance.now() - t0);
      }
      report = { ms: median(times), journal: ref.requests().items.length, deliveries: PAYMENTS * ENDPOINTS };
    }
    await ref.close();
  }
}
const deliveries = PAYMENTS * ENDPOINTS;
console.error(
  `readiness: ${report.ms.toFixed(1)} ms over ${report.journal} journal entries and ${report.deliveries} deliveries; ` +
    `delivering ${deliveries}: chaos off ${median(off).toFixed(0)} ms, chaos on at rate 0 ${median(zero).toFixed(0)} ms`,
);
await emit('readiness', {
  ok: true,
  readinessMs: report.ms,
  journal: report.journal,
  deliveries,
  chaosOffMs: median(off),
  chaosZeroMs: median(zero),
  rounds: ROUNDS,
});
