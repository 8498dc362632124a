// Where psp-sdk's payments.get spends its time over bare ky: ky configured step by step the way
// src/client/transport.ts configures it, each step measured in the same interleaved run.
//   node --expose-gc bench/profile/ky-ablation.mjs

import { pathToFileURL } from 'node:url';
import ky from 'ky';
import * as z from 'zod/mini';
import { PAYMENT_ID, PAYMENT_JSON } from '../lib/fixtures.mjs';
import { compare, printRows } from '../lib/harness.mjs';
import { distFile } from '../lib/sdk.mjs';

const BASE = 'http://127.0.0.1:4010';
const json = { 'content-type': 'application/json' };
const stubFetch = async () => new Response(PAYMENT_JSON, { status: 200, headers: json });
const url = `${BASE}/api/v1/public/payments/${PAYMENT_ID}`;
const auth = 'Bearer sk_test_abc123_4f8a1c2e9b7d6a5f3e2c1b0a9f8e7d6c';
const RETRY_STATUSES = [408, 429, ...Array.from({ length: 100 }, (_, i) => 500 + i)];
const retry = {
  methods: ['get', 'post'],
  statusCodes: RETRY_STATUSES,
  afterStatusCodes: [429, 503],
  maxRetryAfter: 60000,
  backoffLimit: 60000,
  delay: (n) => 500 * 2 ** (n - 1),
  jitter: true,
  retryOnTimeout: true,
};
const bare = ky.create({ fetch: stubFetch });
const withRetry = ky.create({ fetch: stubFetch, retry });
const withHooks = ky.create({
  fetch: stubFetch,
  retry,
  hooks: { beforeRequest: [() => undefined], beforeRetry: [() => undefined] },
});
const { PspClient, ...rest } = await import(pathToFileURL(distFile('psp-sdk')).href);
const client = new PspClient({ apiKey: auth.slice(7), baseUrl: BASE, fetch: stubFetch });
const { responseSchemas } = await import(pathToFileURL(distFile('psp-sdk')).href).then((m) => m);
void rest;
void z;
void responseSchemas;

const variants = [
  { name: 'ky bare, text + JSON.parse', fn: async () => JSON.parse(await (await bare(url)).text()) },
  {
    name: '+ instance retry config',
    fn: async () => JSON.parse(await (await withRetry(url)).text()),
  },
  {
    name: '+ hooks',
    fn: async () => JSON.parse(await (await withHooks(url)).text()),
  },
  {
    name: '+ per-call headers',
    fn: async () =>
      JSON.parse(
        await (await withHooks(url, { headers: { authorization: auth, accept: 'application/json' } })).text(),
      ),
  },
  {
    name: '+ per-call retry {limit, shouldRetry}',
    fn: async () =>
      JSON.parse(
        await (
          await withHooks(url, {
            headers: { authorization: auth, accept: 'application/json' },
            retry: { limit: 2, shouldRetry: () => undefined },
          })
        ).text(),
      ),
  },
  {
    name: '+ per-call context, timeout 60 s',
    fn: async () =>
      JSON.parse(
        await (
          await withHooks(url, {
            method: 'GET',
            headers: { authorization: auth, accept: 'application/json' },
            timeout: 60000,
            retry: { limit: 2, shouldRetry: () => undefined },
            context: { state: { attempts: 0 } },
          })
        ).text(),
      ),
  },
  { name: 'psp-sdk payments.get', fn: () => client.payments.get(PAYMENT_ID) },
  {
    name: 'psp-sdk request() (no schema parse)',
    fn: () => client.request('GET', `/payments/${PAYMENT_ID}`),
  },
];
const rows = await compare(variants, { baseline: 'ky bare, text + JSON.parse', rounds: 12, sliceMs: 150 });
printRows('ky ablation: payments.get over a stub fetch', rows);
