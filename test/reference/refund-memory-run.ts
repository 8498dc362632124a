/**
 * Run by refund-memory.test.ts in a child process started with `--expose-gc`, so that RSS is this reference's
 * alone and a full collection can be asked for: one payment of the largest amount, succeeded, then REFUNDS
 * one-unit refunds in a row with one API key, optionally with a webhook endpoint that is down (its port refuses
 * connections, and the manual clock never brings a retry due). Prints one JSON line with the figures.
 *
 * Usage: node --expose-gc test-output/bundles/refund-memory-run.mjs <refunds> <none|down>
 * (the bundle test/support/global-setup.ts makes of this file at the start of a vitest run).
 */
import { createServer } from 'node:net';
import { createReference } from '../../src/reference/service.js';

const refunds = Number(process.argv[2] ?? 10_000);
const endpoint = process.argv[3] === 'down' ? 'down' : 'none';
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

/** A loopback port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Lets pending I/O (webhook attempts to the closed port) settle, then collects twice. */
async function settle(): Promise<NodeJS.MemoryUsage> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  gc!();
  gc!();
  return process.memoryUsage();
}

const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;

const ref = createReference({ clock: 'manual' });
await ref.control.updateMerchant(ref.merchant_id, {
  rate_limit: { limit: 1_000_000_000, window_seconds: 1 },
});
if (endpoint === 'down') {
  await ref.control.createWebhookEndpoint(ref.shop_id, {
    url: `http://127.0.0.1:${await closedPort()}/hook`,
  });
}
const headers = { authorization: `Bearer ${ref.api_key}`, 'content-type': 'application/json' };
const post = (path: string, body: unknown) =>
  ref.fetch(
    new Request(`http://ref.test/api/v1/public${path}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    }),
  );

// Warm up every path the loop takes (a payment fully refunded, a refusal), so the baseline holds the code.
const warm = (await (await post('/payments', { amount: 2 })).json()) as { payment: { id: string } };
await ref.control.succeedPayment(warm.payment.id);
await post(`/payments/${warm.payment.id}/refund`, { amount: 1 });
await post(`/payments/${warm.payment.id}/refund`, { amount: 1 });
await post(`/payments/${warm.payment.id}/refund`, { amount: 1 });

const created = (await (await post('/payments', { amount: Number.MAX_SAFE_INTEGER })).json()) as {
  payment: { id: string };
};
const id = created.payment.id;
await ref.control.succeedPayment(id);
const before = await settle();
const statuses: Record<string, number> = {};
for (let i = 0; i < refunds; i++) {
  const res = await post(`/payments/${id}/refund`, { amount: 1 });
  const code =
    res.status < 400
      ? String(res.status)
      : `${res.status} ${((await res.json()) as { error: { code: string } }).error.code}`;
  if (res.status < 400) await res.arrayBuffer();
  statuses[code] = (statuses[code] ?? 0) + 1;
}
const after = await settle();
const read = (await (
  await ref.fetch(new Request(`http://ref.test/api/v1/public/payments/${id}`, { headers }))
).json()) as { amount_refunded: number; refunds: unknown[] };
await ref.close();
console.log(
  JSON.stringify({
    endpoint,
    refunds,
    statuses,
    amount_refunded: read.amount_refunded,
    refunds_on_payment: read.refunds.length,
    rss_before_mb: mb(before.rss),
    rss_growth_mb: mb(after.rss - before.rss),
    heap_used_growth_mb: mb(after.heapUsed - before.heapUsed),
    array_buffers_growth_mb: mb(after.arrayBuffers - before.arrayBuffers),
  }),
);
process.exit(0);
