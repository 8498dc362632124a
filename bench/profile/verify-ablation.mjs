// Where verifyWebhook spends its time over node:crypto HMAC + timingSafeEqual + JSON.parse: the same work
// built up step by step, measured in one interleaved run.
//   node --expose-gc bench/profile/verify-ablation.mjs

import { createHmac, timingSafeEqual } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { webhookBody } from '../lib/fixtures.mjs';
import { compare, printRows } from '../lib/harness.mjs';
import { distFile } from '../lib/sdk.mjs';

const { verifyWebhook } = await import(pathToFileURL(distFile('psp-sdk/webhooks')).href);
// The same steps as src/internal/hmac.ts, which the entry does not export.
const hmacSha256HexParts = (key, parts) => {
  const h = createHmac('sha256', key);
  for (const p of parts) h.update(p);
  return h.digest('hex');
};
const timingSafeEqualString = (a, b) => {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
};
const body = webhookBody(2048);
const secret = 'whs_4f8a1c2e9b7d6a5f3e2c1b0a9f8e7d6c';
const t = String(Math.floor(Date.now() / 1000));
const v1 = createHmac('sha256', secret).update(body).digest('hex');
const v2 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
const header = `t=${t},v1=${v1},v2=${v2}`;
const headers = { 'x-psp-signature': header, 'x-psp-timestamp': t };
const HEX64 = /^[0-9a-fA-F]{64}$/;

const rows = await compare(
  [
    {
      name: 'limit: HMAC(t.body) + timingSafeEqual + JSON.parse',
      fn: () => {
        const mac = createHmac('sha256', secret).update(`${t}.${body}`).digest();
        if (!timingSafeEqual(mac, Buffer.from(v2, 'hex'))) throw new Error('x');
        return JSON.parse(body);
      },
    },
    {
      name: 'two update() calls instead of one concatenation',
      fn: () => {
        const mac = createHmac('sha256', secret).update(`${t}.`).update(body).digest();
        if (!timingSafeEqual(mac, Buffer.from(v2, 'hex'))) throw new Error('x');
        return JSON.parse(body);
      },
    },
    {
      name: "digest('hex') + JS string compare",
      fn: () => {
        const mac = createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');
        if (!timingSafeEqualString(mac, v2)) throw new Error('x');
        return JSON.parse(body);
      },
    },
    {
      name: '+ header split, regex checks (as parseSignatureHeader)',
      fn: () => {
        const parts = header.split(',');
        let ts;
        const sigs = [];
        for (const raw of parts) {
          const p = raw.trim();
          const eq = p.indexOf('=');
          const k = p.slice(0, eq);
          const v = p.slice(eq + 1);
          if (k === 't') {
            if (!/^\d{1,12}$/.test(v)) throw new Error('t');
            ts = v;
          } else if (k === 'v2') {
            if (!HEX64.test(v)) throw new Error('hex');
            sigs.push(v.toLowerCase());
          }
        }
        const mac = hmacSha256HexParts(secret, [`${ts}.`, body]);
        if (!timingSafeEqualString(mac, sigs[0])) throw new Error('x');
        return JSON.parse(body);
      },
    },
    { name: 'psp-sdk verifyWebhook', fn: () => verifyWebhook(body, headers, secret) },
  ],
  { baseline: 'limit: HMAC(t.body) + timingSafeEqual + JSON.parse', rounds: 15, sliceMs: 120 },
);
printRows('verifyWebhook ablation', rows);
