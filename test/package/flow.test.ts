import { describe, expect, inject, it } from 'vitest';
import { lastJson, runScript, runtimes } from './runtimes.js';

const consumer = inject('consumerDir');

// Each runtime, with the package as installed from its tarball: reference up on 127.0.0.1, a payment created and
// paid, its webhook received and verified, a signWebhook round trip, and one SSE event read.
describe('the smoke flow runs in every runtime', () => {
  for (const runtime of runtimes) {
    it(runtime.name, async () => {
      const result = await runScript(runtime, consumer, 'flow');
      if (result.code !== 0) throw new Error(`exit ${result.code}\n${result.stderr}\n${result.stdout}`);
      const report = lastJson(result);
      expect(report).toMatchObject({
        payment_status: 'pending',
        payment_url: true,
        paid_status: 'succeeded',
        fetched_status: 'succeeded',
        webhook_event: 'payment.succeeded',
        webhook_id_prefix: 'evt_',
        signed_roundtrip: 'evt_smoke',
        tampered_rejected: true,
      });
      expect(['payment.created', 'payment.status_changed']).toContain(report.sse_kind);
    });
  }
});
