// The reference's own cost per request without sockets: reference.fetch(request) against a bare hono app
// answering the same canned bytes, in the same interleaved run.
//   node --expose-gc bench/profile/reference-inprocess.mjs

import { pathToFileURL } from 'node:url';
import { Hono } from 'hono';
import { CREATE_INPUT_JSON, PAYMENT_JSON } from '../lib/fixtures.mjs';
import { compare, printRows } from '../lib/harness.mjs';
import { distFile } from '../lib/sdk.mjs';

const { createReference } = await import(pathToFileURL(distFile('psp-sdk/reference')).href);
const ref = createReference({ clock: 'manual' });
const facts = ref; // the startup facts are on the handle
const base = 'http://127.0.0.1:4010';
const headers = { authorization: `Bearer ${facts.api_key}`, 'content-type': 'application/json' };
const patch = await ref.fetch(
  new Request(`${base}/_cabinet/merchants/${facts.merchant_id}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${facts.admin_token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ rate_limit: { limit: 1_000_000_000, window_seconds: 1 } }),
  }),
);
if (!patch.ok) throw new Error(await patch.text());
const created = await (
  await ref.fetch(
    new Request(`${base}/api/v1/public/payments`, { method: 'POST', headers, body: CREATE_INPUT_JSON }),
  )
).json();
const id = created.payment.id;
const app = new Hono();
app.get('/api/v1/public/payments/:id', (c) =>
  c.body(PAYMENT_JSON, 200, { 'content-type': 'application/json' }),
);
app.post('/api/v1/public/payments', async (c) => {
  await c.req.json();
  return c.body(PAYMENT_JSON, 201, { 'content-type': 'application/json' });
});
const info = { remoteAddress: '127.0.0.1' };
const getReq = () => new Request(`${base}/api/v1/public/payments/${id}`, { headers });
const postReq = () =>
  new Request(`${base}/api/v1/public/payments`, { method: 'POST', headers, body: CREATE_INPUT_JSON });
const rows = await compare(
  [
    { name: 'hono GET canned', fn: async () => (await app.fetch(getReq())).text() },
    { name: 'reference.fetch GET payment', fn: async () => (await ref.fetch(getReq(), info)).text() },
    { name: 'hono POST json()', fn: async () => (await app.fetch(postReq())).text() },
    { name: 'reference.fetch POST create', fn: async () => (await ref.fetch(postReq(), info)).text() },
  ],
  { baseline: 'hono GET canned', rounds: 10, sliceMs: 150 },
);
printRows('in-process, no sockets', rows);
await ref.close();
