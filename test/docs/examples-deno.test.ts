import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PspClient } from '../../src/index.js';
import { startReference } from '../../src/reference/index.js';
import { until } from './until.js';

const root = join(import.meta.dirname, '..', '..');
const deno = join(root, 'test', 'support', 'runtimes', 'node_modules', '.bin', 'deno');

// Skipped only where engineer F's pinned Deno (test/support/runtimes, npm install there) is absent; the reason is printed.
describe.skipIf(!existsSync(deno))(
  `examples/deno/webhook-handler.ts under Deno${existsSync(deno) ? '' : ` (skipped: ${deno} missing)`}`,
  () => {
    it('verifies a webhook the reference delivers and runs the typed handler', async () => {
      const ref = await startReference({ port: 0 });
      // The endpoint's secret is needed to start the receiver, and the receiver's URL to register an endpoint:
      // register one, then send this payment's events to Deno with the payment's webhook_url (signed with that
      // endpoint's secret, spec 6.1).
      const endpoint = await ref.control.createWebhookEndpoint(ref.shop_id, {
        url: 'http://127.0.0.1:9/unused',
      });
      const child = spawn(
        deno,
        [
          'run',
          '--config',
          'examples/deno/deno.json',
          '--allow-net',
          '--allow-env',
          'examples/deno/webhook-handler.ts',
        ],
        { cwd: root, env: { ...process.env, PSP_WEBHOOK_SECRET: endpoint.secret, PORT: '0', NO_COLOR: '1' } },
      );
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
      });
      child.stderr.on('data', (c: Buffer) => {
        out += c.toString();
      });
      try {
        const url = await until(() => /listening on (http\S+)/.exec(out)?.[1], 'Deno to listen', 15_000);
        const psp = new PspClient({ apiKey: ref.api_key, baseUrl: ref.base_url });
        const { payment } = await psp.payments.create({
          amount: 10_000,
          order_id: 'deno-1',
          webhook_url: url,
        });
        await ref.control.succeedPayment(payment.id);
        await until(
          () => (out.includes(`paid ${payment.id} order=deno-1`) ? true : undefined),
          'the Deno handler',
          10_000,
        );
        const forged = await fetch(url, {
          method: 'POST',
          body: '{}',
          headers: { 'x-psp-signature': 'sha256=00' },
        });
        expect(forged.status).toBe(400);
      } finally {
        child.kill();
        await ref.close();
      }
    });
  },
);
