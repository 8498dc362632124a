#!/usr/bin/env node
// Runs a bundled Worker in Cloudflare's workerd through miniflare (pinned here; it needs Node >= 22, so the test
// starts this file with the pinned Node 24) and sends it the requests read as JSON from stdin:
//   { "script": "/abs/worker.js", "bindings": { ... }, "requests": [{ "path", "method", "headers", "body" }] }
// Prints one JSON line: [{ "status", "body" }] in the same order.
import { dirname } from 'node:path';
import { Miniflare } from 'miniflare';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const { script, bindings, requests } = JSON.parse(input);

const mf = new Miniflare({
  modules: true,
  scriptPath: script,
  // Module paths are relative to this root; the default (the cwd) cannot reach a script outside it.
  modulesRoot: dirname(script),
  compatibilityDate: '2026-07-01',
  bindings,
});
try {
  const answers = [];
  for (const r of requests) {
    const res = await mf.dispatchFetch(new URL(r.path, 'http://worker.test').href, {
      method: r.method ?? 'GET',
      headers: r.headers ?? {},
      body: r.body,
    });
    answers.push({ status: res.status, body: await res.text() });
  }
  console.log(JSON.stringify(answers));
} finally {
  await mf.dispose();
}
