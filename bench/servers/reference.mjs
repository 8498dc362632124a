// The reference service as a user starts it (startReference from the built psp-sdk/reference), in its own process.
// argv[2] is a JSON object of ReferenceOptions (e.g. {"clock":"manual"}). Once listening it lifts the merchant's
// rate limit (the load tests measure throughput, not the limiter), creates one payment for the GET test, and sends
// the facts on the IPC channel. It answers {cmd:'memory'} with process.memoryUsage() after a full GC, and exits when
// the parent disconnects.

import { pathToFileURL } from 'node:url';
import { CREATE_INPUT_JSON } from '../lib/fixtures.mjs';
import { distFile } from '../lib/sdk.mjs';

const options = JSON.parse(process.argv[2] ?? '{}');
const { startReference } = await import(pathToFileURL(distFile('psp-sdk/reference')).href);
if (typeof startReference !== 'function') {
  console.error('psp-sdk/reference has no startReference yet');
  process.exit(3);
}
const running = await startReference({ host: '127.0.0.1', port: 0, ...options });
const base = running.base_url;

async function call(method, path, token, body) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

await call('PATCH', `/_cabinet/merchants/${running.merchant_id}`, running.admin_token, {
  rate_limit: { limit: 1_000_000_000, window_seconds: 1 },
});
const created = await call('POST', '/api/v1/public/payments', running.api_key, JSON.parse(CREATE_INPUT_JSON));

process.on('message', async (msg) => {
  if (msg?.cmd === 'cpu') {
    const u = process.cpuUsage();
    process.send({ cpuMs: (u.user + u.system) / 1000 });
  }
  if (msg?.cmd === 'memory') {
    for (let i = 0; i < 3; i++) globalThis.gc?.();
    process.send({ memory: process.memoryUsage() });
  }
});
process.on('disconnect', async () => {
  await running.close();
  process.exit(0);
});
process.send({
  port: new URL(base).port,
  base_url: base,
  api_key: running.api_key,
  admin_token: running.admin_token,
  merchant_id: running.merchant_id,
  shop_id: running.shop_id,
  terminal_id: running.terminal_id,
  signing_secret: running.signing_secret,
  payment_id: created.payment.id,
});
