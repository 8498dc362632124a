// What a refused body costs the reference (issue 40, N4): server CPU per refused 1 MiB `payments.create` (over its
// cap, body-caps.ts) against a refused 1-byte one, and a bystander's GET p50 with and without a flood of them. The
// reference runs in a child process from dist/ (npm run build); its CPU is read from /proc before and after.
//   node bench/profile/refused-body.mjs [requests=200]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';

const n = Number(process.argv[2] ?? 200);
const dist = new URL('../../dist/reference/index.js', import.meta.url).href;
const code = `const { startReference } = await import(${JSON.stringify(dist)});
const r = await startReference({ port: 0 });
await r.control.updateMerchant(r.merchant_id, { rate_limit: { limit: 1000000, window_seconds: 1 } });
console.log(JSON.stringify({ url: r.base_url, key: r.api_key }));`;
const child = spawn(process.execPath, ['--input-type=module', '-e', code], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const { url, key } = JSON.parse(await new Promise((r) => child.stdout.once('data', (d) => r(String(d)))));
const { port } = new URL(url);
const ticks = () => {
  const f = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(f[11]) + Number(f[12]); // utime + stime, in clock ticks (1/100 s)
};

/** One POST of `bytes` bytes on a fresh connection; resolves with the status once answered (or the socket ends). */
function post(bytes) {
  return new Promise((resolve) => {
    const req = request(
      {
        port,
        host: '127.0.0.1',
        method: 'POST',
        path: '/api/v1/public/payments',
        agent: false,
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'content-length': bytes,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      },
    );
    req.on('error', () => resolve('reset'));
    req.end(Buffer.alloc(bytes, 32));
  });
}
const get = () =>
  new Promise((resolve) => {
    const t0 = performance.now();
    request(
      {
        port,
        host: '127.0.0.1',
        path: '/api/v1/public/banks/sbp',
        headers: { authorization: `Bearer ${key}` },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(performance.now() - t0));
      },
    ).end();
  });

async function cpuPer(bytes) {
  for (let i = 0; i < 20; i++) await post(bytes); // warm-up
  const before = ticks();
  const statuses = {};
  for (let i = 0; i < n; i++) {
    const s = await post(bytes);
    statuses[s] = (statuses[s] ?? 0) + 1;
  }
  return { ms: ((ticks() - before) * 10) / n, statuses };
}
const p50 = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function bystander(flood) {
  let on = true;
  const flooding = flood
    ? Promise.all(
        Array.from({ length: 4 }, async () => {
          while (on) await post(1024 * 1024);
        }),
      )
    : undefined;
  const times = [];
  for (let i = 0; i < 200; i++) times.push(await get());
  on = false;
  await flooding;
  return p50(times);
}

const small = await cpuPer(1);
const large = await cpuPer(1024 * 1024);
console.log(`refused 1-byte body: ${small.ms.toFixed(2)} ms CPU each ${JSON.stringify(small.statuses)}`);
console.log(`refused 1 MiB body:  ${large.ms.toFixed(2)} ms CPU each ${JSON.stringify(large.statuses)}`);
console.log(
  `bystander GET p50: ${(await bystander(false)).toFixed(2)} ms alone, ${(await bystander(true)).toFixed(2)} ms under 4 connections of 1 MiB bodies`,
);
child.kill();
