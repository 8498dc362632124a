// A steady loop of one client call over the stub fetch, to profile with --cpu-prof or count with callgrind.
//   node --cpu-prof --cpu-prof-dir=/tmp/prof bench/profile/client-loop.mjs get|create|ky-get|ky-post [seconds|calls]
//   Under callgrind pass a call count: `... create 2000`, then again with 4000, and subtract.

import { pathToFileURL } from 'node:url';
import ky from 'ky';
import { CREATE_INPUT, CREATE_RESPONSE_JSON, PAYMENT_ID, PAYMENT_JSON } from '../lib/fixtures.mjs';
import { distFile } from '../lib/sdk.mjs';

const [what = 'get', amount = '5'] = process.argv.slice(2);
const json = { 'content-type': 'application/json' };
const stubFetch = async (input, init) =>
  (init?.method ?? input?.method) === 'POST'
    ? new Response(CREATE_RESPONSE_JSON, { status: 201, headers: json })
    : new Response(PAYMENT_JSON, { status: 200, headers: json });
const { PspClient } = await import(pathToFileURL(distFile('psp-sdk')).href);
const opts = {
  apiKey: 'sk_test_abc123_4f8a1c2e9b7d6a5f3e2c1b0a9f8e7d6c',
  baseUrl: 'http://127.0.0.1:4010',
  fetch: stubFetch,
};
const client = new PspClient(opts);
const signing = new PspClient({ ...opts, signingSecret: 'thm_9f8e7d6c5b4a39281706f5e4d3c2b1a0' });
const k = ky.create({ prefixUrl: opts.baseUrl, fetch: stubFetch });
const calls = {
  get: () => client.payments.get(PAYMENT_ID),
  create: () => signing.payments.create(CREATE_INPUT),
  'ky-get': () => k.get(`api/v1/public/payments/${PAYMENT_ID}`).json(),
  'ky-post': () => k.post('api/v1/public/payments', { json: CREATE_INPUT }).json(),
};
const fn = calls[what];
const n = Number(amount);
if (n > 100) for (let i = 0; i < n; i++) await fn();
else {
  const end = Date.now() + n * 1000;
  let i = 0;
  while (Date.now() < end) {
    await fn();
    i++;
  }
  console.error(`${what}: ${i} calls`);
}
