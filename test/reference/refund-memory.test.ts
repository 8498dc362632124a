import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { bundled } from '../support/bundles.js';

// Issue 13, hole 1: memory grew with the square of the refunds on one payment (each `payment.refunded` webhook
// carries the whole payment with every refund so far). 10,000 one-unit refunds in a row on one payment, with one
// key, must keep the reference's RSS growth under 100 MB, with no webhook endpoint and with one that is down.
// Measured in a child process started with --expose-gc, so RSS is the reference's alone and garbage is collected
// before each reading; the figures are printed.

const run = promisify(execFile);
const REFUNDS = 10_000;
const BUDGET_MB = 100;

interface Figures {
  statuses: Record<string, number>;
  refunds_on_payment: number;
  amount_refunded: number;
  rss_growth_mb: number;
  heap_used_growth_mb: number;
  array_buffers_growth_mb: number;
}

async function measure(endpoint: 'none' | 'down'): Promise<Figures> {
  const { stdout } = await run(
    process.execPath,
    ['--expose-gc', bundled('refund-memory-run'), String(REFUNDS), endpoint],
    { timeout: 240_000, maxBuffer: 1 << 20 },
  );
  const line = stdout.trim().split('\n').pop()!;
  console.log(`[refund-memory] ${line}`);
  return JSON.parse(line) as Figures;
}

describe(`${REFUNDS} one-unit refunds on one payment`, () => {
  it.each(['none', 'down'] as const)(
    `keep RSS growth under ${BUDGET_MB} MB (webhook endpoint: %s)`,
    async (endpoint) => {
      const f = await measure(endpoint);
      expect(f.rss_growth_mb).toBeLessThan(BUDGET_MB);
      expect(f.heap_used_growth_mb + f.array_buffers_growth_mb).toBeLessThan(BUDGET_MB);
      // The refunds beyond the documented limit were refused with 409 refund_limit_reached, and moved nothing.
      expect(f.statuses['201']).toBe(f.refunds_on_payment);
      expect(f.amount_refunded).toBe(f.refunds_on_payment);
      expect(f.statuses['201']! + (f.statuses['409 refund_limit_reached'] ?? 0)).toBe(REFUNDS);
    },
    300_000,
  );
});
