#!/usr/bin/env node
// Runs a bundled Worker in an edge runtime and sends it the requests read as JSON from stdin:
//   { "runtime": "workerd" | "edge-runtime", "script": "/abs/worker.js", "bindings": { ... },
//     "requests": [{ "path", "method", "headers", "body" }] }
// Prints one JSON line: [{ "status", "body" }] in the same order.
// - workerd: Cloudflare's runtime through miniflare (pinned here; it needs Node >= 22, so the test starts this file
//   with the pinned Node 24). The script is an ES module with a default `fetch(request, env)` export.
// - edge-runtime: Vercel's Edge Runtime VM (@edge-runtime/vm). The script is an IIFE that sets `__worker` to the
//   same module; the VM dispatches fetch events to its `fetch` with the bindings as `env`.
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const { runtime, script, bindings, requests } = JSON.parse(input);

async function workerd() {
  const { Miniflare } = await import('miniflare');
  const mf = new Miniflare({
    modules: true,
    scriptPath: script,
    // Module paths are relative to this root; the default (the cwd) cannot reach a script outside it.
    modulesRoot: dirname(script),
    compatibilityDate: '2026-07-01',
    bindings,
  });
  return { fetch: (url, init) => mf.dispatchFetch(url, init), dispose: () => mf.dispose() };
}

async function edgeRuntime() {
  const { EdgeVM } = await import('@edge-runtime/vm');
  const vm = new EdgeVM({
    initialCode: `${readFileSync(script, 'utf8')}
const __env = ${JSON.stringify(bindings)};
addEventListener('fetch', (event) => event.respondWith(__worker.default.fetch(event.request, __env)));`,
  });
  return { fetch: (url, init) => vm.dispatchFetch(url, init), dispose: async () => {} };
}

const worker = runtime === 'edge-runtime' ? await edgeRuntime() : await workerd();
try {
  const answers = [];
  for (const r of requests) {
    const res = await worker.fetch(new URL(r.path, 'http://worker.test').href, {
      method: r.method ?? 'GET',
      headers: r.headers ?? {},
      body: r.body,
    });
    answers.push({ status: res.status, body: await res.text() });
  }
  console.log(JSON.stringify(answers));
} finally {
  await worker.dispose();
}
