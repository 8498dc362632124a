// A merchant's webhook receiver on 127.0.0.1: verifies every delivery's v2 signature with node:crypto (as a
// careful merchant does), answers 503 while told to fail and 204 once told to accept, and reports counts and the
// times of the first and last accepted delivery. IPC: {cmd:'accept'}, {cmd:'stats'}, {cmd:'secret', secret}, {cmd:'cpu'} (its CPU time, ms).

import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';

let accept = false;
let secret = '';
const stats = { failed: 0, accepted: 0, badSignature: 0, firstAt: 0, lastAt: 0 };

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const header = String(req.headers['x-psp-signature'] ?? '');
    const t = /(?:^|,)t=(\d+)/.exec(header)?.[1];
    const v2 = /(?:^|,)v2=([0-9a-f]{64})/.exec(header)?.[1];
    const mac = createHmac('sha256', secret).update(`${t}.`).update(body).digest();
    if (!t || !v2 || !timingSafeEqual(mac, Buffer.from(v2, 'hex'))) stats.badSignature++;
    if (!accept) {
      stats.failed++;
      res.writeHead(503).end();
      return;
    }
    const now = performance.now();
    if (stats.accepted === 0) stats.firstAt = now;
    stats.lastAt = now;
    stats.accepted++;
    res.writeHead(204).end();
  });
});
server.keepAliveTimeout = 30_000;
server.on('listening', () => process.send({ port: server.address().port }));
process.on('message', (msg) => {
  if (msg?.cmd === 'secret') {
    secret = msg.secret;
    process.send({ secretSet: true });
  }
  if (msg?.cmd === 'fail') {
    // A new backlog: fail again and forget the last one's counts.
    accept = false;
    Object.assign(stats, { failed: 0, accepted: 0, badSignature: 0, firstAt: 0, lastAt: 0 });
    process.send({ failing: true });
  }
  if (msg?.cmd === 'accept') {
    accept = true;
    process.send({ accepting: performance.now() });
  }
  if (msg?.cmd === 'stats') process.send({ stats: { ...stats, now: performance.now() } });
  if (msg?.cmd === 'cpu') {
    const u = process.cpuUsage();
    process.send({ cpuMs: (u.user + u.system) / 1000 });
  }
});
process.on('disconnect', () => process.exit(0));
server.listen(0, '127.0.0.1');
