#!/usr/bin/env node
// Drives a running psp-reference from outside, as a team in another language would: a webhook endpoint on the
// startup shop pointing at a receiver this script starts on 127.0.0.1, a payment, the bank's success, the payment
// read back, and the delivered webhook verified with the fixed whs_ secret. Prints one JSON line and exits 0, or
// says what failed and exits 1. The release workflow runs it against the container image; test/package/binary.test.ts
// against the single executable. Reads dist/ (`npm run build`) for the package's verifyWebhook.
//
// It waits up to 30 s for the reference to answer first.
//
// Usage: node scripts/smoke-reference.mjs --base-url <url> --api-key <sk_test_...> --admin-token <token>
//          --webhook-secret <whs_...> [--shop-id <id>]   (without --shop-id, the facts of GET /_simulator/snapshot)
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { verifyWebhook } from '../dist/webhooks/index.js';

const { values: o } = parseArgs({
  options: {
    'base-url': { type: 'string' },
    'api-key': { type: 'string' },
    'admin-token': { type: 'string' },
    'webhook-secret': { type: 'string' },
    'shop-id': { type: 'string' },
  },
});
for (const name of ['base-url', 'api-key', 'admin-token', 'webhook-secret'])
  if (!o[name]) throw new Error(`smoke-reference: --${name} is required`);

/** One JSON call; a status other than `expected` throws with the answer's error code. */
async function call(path, token, expected, body) {
  const res = await fetch(new URL(path, o['base-url']), {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  const answer = await res.json();
  if (res.status !== expected)
    throw new Error(`${path} answered ${res.status} ${answer?.error?.code ?? ''}, expected ${expected}`);
  return answer;
}

let received;
const hook = new Promise((resolve) => {
  received = resolve;
});
const receiver = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    res.writeHead(204).end();
    received({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
  });
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));

/** Waits up to 30 s for the reference to answer (a container or a process just started). */
async function ready() {
  const until = Date.now() + 30_000;
  for (;;) {
    try {
      const res = await fetch(new URL('/openapi.json', o['base-url']), {
        signal: AbortSignal.timeout(2_000),
      });
      await res.body?.cancel();
      if (res.ok) return;
    } catch (error) {
      if (Date.now() > until)
        throw new Error(`${o['base-url']} does not answer: ${error.cause?.code ?? error.message}`);
    }
    if (Date.now() > until) throw new Error(`${o['base-url']}/openapi.json does not answer 200`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

try {
  await ready();
  const shopId = o['shop-id'] ?? (await call('/_simulator/snapshot', o['admin-token'], 200)).facts.shop_id;
  const endpoint = await call(`/_cabinet/shops/${shopId}/webhook-endpoints`, o['admin-token'], 201, {
    url: `http://127.0.0.1:${receiver.address().port}/hooks`,
    events: ['payment.succeeded'],
  });
  if (endpoint.secret !== o['webhook-secret'])
    throw new Error("the endpoint's secret is not the fixed --webhook-secret");
  const { payment } = await call('/api/v1/public/payments', o['api-key'], 201, {
    amount: 1000,
    order_id: 'SMOKE-1',
  });
  await call(`/_simulator/payments/${payment.id}/succeed`, o['admin-token'], 200, {});
  const read = await call(`/api/v1/public/payments/${payment.id}`, o['api-key'], 200);
  const timeout = new Promise((_, reject) =>
    setTimeout(() => reject(new Error('no webhook within 15 s')), 15_000).unref(),
  );
  const { body, headers } = await Promise.race([hook, timeout]);
  const event = verifyWebhook(body, headers, o['webhook-secret']);
  if (event.event !== 'payment.succeeded' || event.data.id !== payment.id)
    throw new Error(`unexpected webhook ${event.event} for ${event.data.id}`);
  console.log(
    JSON.stringify({ payment_id: payment.id, status: read.status, webhook: event.event, verified: true }),
  );
} catch (error) {
  console.error(`smoke-reference: ${error.message}`);
  process.exitCode = 1;
} finally {
  receiver.close();
}
