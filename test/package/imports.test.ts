import { describe, expect, inject, it } from 'vitest';
import { lastJson, runScript, runtimes, runtimesInstalled } from './runtimes.js';

const consumer = inject('consumerDir');

// What other code and the docs rely on, per the cross-module signatures: a missing name is a broken package.
const required: Record<string, string[]> = {
  'psp-sdk': [
    'PspClient',
    'PspError',
    'PspApiError',
    'PspConnectionError',
    'PspTimeoutError',
    'PspAbortError',
  ],
  'psp-sdk/webhooks': ['verifyWebhook', 'signWebhook', 'WebhookVerificationError'],
  'psp-sdk/replicas': ['memoryDedupe', 'redisDedupe', 'memoryLease', 'redisLease'],
  'psp-sdk/reference': ['createReference', 'startReference', 'ManualClock'],
  'psp-sdk/reference/msw': [],
};

describe('the packed package loads in every runtime', () => {
  it('has the pinned runtimes installed (scripts/ensure-runtimes.mjs)', () => {
    expect(runtimesInstalled()).toBe(true);
  });

  let reference: Record<string, unknown> | undefined;
  for (const runtime of runtimes) {
    it(`${runtime.name}: every entry loads with the same exports`, async () => {
      const result = await runScript(runtime, consumer, 'imports');
      expect(result.stderr).not.toMatch(/Error|warn/i);
      expect(result.code).toBe(0);
      const exports = lastJson(result);
      for (const [entry, names] of Object.entries(required)) {
        expect(exports[entry], entry).toEqual(expect.arrayContaining(names));
      }
      // ESM and CJS, and every runtime, see one API: the first runtime's names are the reference.
      reference ??= exports;
      expect(exports).toEqual(reference);
    });
  }
});
