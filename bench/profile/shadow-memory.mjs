// Shadow mode's memory against a hostile upstream (issue 40, N1): the shadow's peak RSS (VmHWM) over its RSS after
// a first small request, while (a) one GET of a payment is answered with 512 MiB of JSON, then (b) 8 GETs are held by upstreams
// that send their headers and 6 bytes and stall. The shadow runs in a child process from dist/ (npm run build), the
// upstream and the client here.
//   node bench/profile/shadow-memory.mjs [MiB=512]
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';

const mib = Number(process.argv[2] ?? 512);
const dist = new URL('../../dist/reference/index.js', import.meta.url).href;
const chunk = Buffer.alloc(1024 * 1024, 'a');
let stalled = 0;
const upstream = createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  if (req.url?.endsWith('/small')) return res.end('{"error":{"code":"not_found","message":"No."}}');
  if (req.url?.endsWith('/stall')) {
    stalled++;
    return res.write('{"id":');
  }
  res.write('{"x":"');
  let left = mib;
  const more = () => {
    while (left > 0) {
      left--;
      if (!res.write(chunk)) return void res.once('drain', more);
    }
    res.end('"}');
  };
  more();
});
await new Promise((r) => upstream.listen(0, '127.0.0.1', r));
const code = `const { startShadow } = await import(${JSON.stringify(dist)});
const s = await startShadow({ upstream: 'http://127.0.0.1:${upstream.address().port}', port: 0 });
console.log(s.url);`;
const child = spawn(process.execPath, ['--input-type=module', '-e', code], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const url = (await new Promise((r) => child.stdout.once('data', (d) => r(String(d))))).trim();
const status = (key) =>
  Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]) /
  1024;
const path = '/api/v1/public/payments/0b6c6a8e-1f4e-4c55-9f0a-6d2e1c3b5a78';
// A first request compiles the paths of fetch, hono and the reference: the figures are over a warm shadow, with its
// peak reset (clear_refs 5) after it.
await (await fetch(`${url}${path}/small`, { headers: { authorization: 'Bearer sk_test_abcdef_x' } })).text();
writeFileSync(`/proc/${child.pid}/clear_refs`, '5');
const base = status('VmRSS');

const res = await fetch(`${url}${path}`, { headers: { authorization: 'Bearer sk_test_abcdef_x' } });
let size = 0;
for await (const part of res.body) size += part.byteLength;
const afterLarge = status('VmHWM');
console.log(
  `512 MiB answer: status ${res.status}, ${(size / 2 ** 20).toFixed(0)} MiB passed; peak RSS ${afterLarge.toFixed(0)} MiB (+${(afterLarge - base).toFixed(0)} over ${base.toFixed(0)} warm)`,
);

const held = Array.from({ length: 8 }, () =>
  fetch(`${url}${path}/stall`, { headers: { authorization: 'Bearer sk_test_abcdef_x' } }).then(
    (r) => r.status,
    () => 'error',
  ),
);
while (stalled < 8) await new Promise((r) => setTimeout(r, 50));
const whileStalled = status('VmRSS');
console.log(
  `8 stalled upstreams: RSS ${whileStalled.toFixed(0)} MiB (+${(whileStalled - base).toFixed(0)}); answers once the 30 s deadline passes: ${(await Promise.all(held)).join(', ')}`,
);
child.kill();
upstream.closeAllConnections();
upstream.close();
