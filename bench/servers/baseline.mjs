// The baselines the reference is measured against, each in its own process so it has a core to itself:
//   node-http: bare node:http answering the canned 1.5 KB payment, and parsing a 200-byte JSON body to answer 201;
//   hono:      the same two routes in hono on @hono/node-server, the reference's own stack, with nothing else.
// Prints {"port"} on the IPC channel once listening, answers {cmd:'cpu'} with its CPU time in ms, and exits when
// the parent disconnects.

import { createServer } from 'node:http';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { CREATE_RESPONSE_JSON, PAYMENT_JSON } from '../lib/fixtures.mjs';

const kind = process.argv[2];
const json = { 'content-type': 'application/json' };
const paymentBytes = Buffer.from(PAYMENT_JSON);
const createdBytes = Buffer.from(CREATE_RESPONSE_JSON);

function ready(server) {
  server.on('listening', () => process.send({ port: server.address().port }));
  process.on('disconnect', () => process.exit(0));
  process.on('message', (msg) => {
    if (msg?.cmd === 'cpu') {
      const u = process.cpuUsage();
      process.send({ cpuMs: (u.user + u.system) / 1000 });
    }
  });
}

if (kind === 'node-http') {
  const server = createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { ...json, 'content-length': paymentBytes.length });
      res.end(paymentBytes);
      return;
    }
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (typeof input.amount !== 'number') {
        res.writeHead(400, json);
        res.end('{"error":{"code":"bad_request","message":"amount"}}');
        return;
      }
      res.writeHead(201, { ...json, 'content-length': createdBytes.length });
      res.end(createdBytes);
    });
  });
  ready(server);
  server.listen(0, '127.0.0.1');
} else if (kind === 'hono') {
  const app = new Hono();
  // A fresh headers object per response: @hono/node-server's light Response writes content-length into the object
  // it is given, so a shared one breaks the second response ("v is not iterable").
  app.get('/api/v1/public/payments/:id', (c) =>
    c.body(PAYMENT_JSON, 200, { 'content-type': 'application/json' }),
  );
  app.post('/api/v1/public/payments', async (c) => {
    const input = await c.req.json();
    if (typeof input.amount !== 'number')
      return c.json({ error: { code: 'bad_request', message: 'amount' } }, 400);
    return c.body(CREATE_RESPONSE_JSON, 201, { 'content-type': 'application/json' });
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  ready(server);
} else {
  throw new Error(`unknown baseline ${kind}`);
}
