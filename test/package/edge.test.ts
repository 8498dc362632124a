import { spawn } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RunningReference, startReference } from '../../src/reference/index.js';
import { signWebhook } from '../../src/webhooks/index.js';

const consumer = inject('consumerDir');
const runtimes = new URL('../support/runtimes/', import.meta.url).pathname;
const SECRET = 'whs_edge_test_secret_0123456789abcdef';

interface Answer {
  status: number;
  body: string;
}

type EdgeRuntime = 'workerd' | 'edge-runtime';

/**
 * Bundles the worker against the installed package as the platform's tooling would (esbuild, the worker
 * conditions): an ES module for workerd, a script setting `__worker` for the Edge Runtime VM.
 */
async function bundle(runtime: EdgeRuntime): Promise<string> {
  const entry = join(consumer, 'edge-worker.mjs');
  copyFileSync(new URL('./edge/worker.mjs', import.meta.url), entry);
  const outfile = join(consumer, `edge-worker.${runtime}.js`);
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    ...(runtime === 'workerd'
      ? { format: 'esm', conditions: ['workerd', 'worker', 'browser'] }
      : { format: 'iife', globalName: '__worker', conditions: ['edge-light', 'worker', 'browser'] }),
    platform: 'browser',
    target: 'es2022',
    logLevel: 'silent',
  });
  return outfile;
}

/** Runs `requests` against the bundled worker inside the runtime (test/support/runtimes/edge-run.mjs on the pinned Node 24). */
function inEdgeRuntime(
  runtime: EdgeRuntime,
  script: string,
  bindings: Record<string, string>,
  requests: Array<{ path: string; method?: string; headers?: Record<string, string>; body?: string }>,
): Promise<Answer[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(runtimes, 'node_modules', '.bin', 'node'), [join(runtimes, 'edge-run.mjs')], {
      cwd: runtimes,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const line = stdout.trim().split('\n').pop() ?? '';
      try {
        if (code !== 0) throw new Error(`exit ${code}`);
        resolve(JSON.parse(line) as Answer[]);
      } catch (error) {
        reject(new Error(`${runtime} run failed (${String(error)})\nstdout: ${stdout}\nstderr: ${stderr}`));
      }
    });
    child.stdin.end(JSON.stringify({ runtime, script, bindings, requests }));
  });
}

// Edge runtimes are where a webhook verifier most often breaks (no node:crypto, no synchronous Web Crypto): the
// installed psp-sdk, bundled as an edge function, verifies and refuses webhooks and drives the API in each.
describe.each([
  ['workerd', 'Cloudflare workerd (miniflare)', 'Cloudflare-Workers'],
  ['edge-runtime', "Vercel's Edge Runtime (@edge-runtime/vm)", 'edge-runtime'],
] as const)('%s: psp-sdk bundled into an edge function (%s)', (runtime, _label, runtimeName) => {
  let ref: RunningReference;
  let answers: Answer[];
  const signed = signWebhook(
    {
      id: 'evt_edge_1',
      event: 'payment.succeeded',
      created_at: '2026-11-24T12:00:00.000Z',
      data: { id: 'pay_edge', status: 'succeeded' },
    },
    SECRET,
  );
  const headers = Object.fromEntries(new Headers(signed.headers as ConstructorParameters<typeof Headers>[0]));

  beforeAll(async () => {
    ref = await startReference({ port: 0 });
    answers = await inEdgeRuntime(
      runtime,
      await bundle(runtime),
      { WEBHOOK_SECRET: SECRET, PSP_API_KEY: ref.api_key, PSP_BASE_URL: ref.base_url },
      [
        { path: '/webhook', method: 'POST', headers, body: signed.body },
        // One byte changed in the body: the signature no longer matches.
        { path: '/webhook', method: 'POST', headers, body: signed.body.replace('succeeded', 'succeedee') },
        { path: '/client' },
      ],
    );
  }, 120_000);
  afterAll(() => ref?.close());

  it('verifies a signed webhook synchronously (the bundled HMAC, no node:crypto)', () => {
    const [ok] = answers;
    expect(ok?.status, ok?.body).toBe(200);
    expect(JSON.parse(ok!.body)).toEqual({
      verified: true,
      id: 'evt_edge_1',
      event: 'payment.succeeded',
      backend: 'noble',
    });
  });

  it('refuses a tampered webhook with WebhookVerificationError', () => {
    const [, tampered] = answers;
    expect(tampered?.status).toBe(500);
    expect(JSON.parse(tampered!.body)).toMatchObject({ name: 'WebhookVerificationError' });
  });

  it('PspClient creates and reads a payment and lists the banks against the reference on 127.0.0.1', async () => {
    const [, , client] = answers;
    expect(client?.status, client?.body).toBe(200);
    const report = JSON.parse(client!.body) as Record<string, string | number>;
    expect(report.runtime).toBe(runtimeName);
    expect(report.read).toBe(report.created);
    expect(report.status).toBe('pending');
    expect(report.payment_url).toBe(`${ref.pay_url}/${report.created}`);
    expect(report.banks).toBeGreaterThan(10);
    // The payment is really in the reference, created from inside the worker.
    const res = await ref.fetch(
      new Request(`${ref.base_url}/api/v1/public/payments/${report.created}`, {
        headers: { authorization: `Bearer ${ref.api_key}` },
      }),
    );
    expect(res.status).toBe(200);
  });
});
