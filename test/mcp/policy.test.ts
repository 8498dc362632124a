// Issue 44 item 3: psp-mcp safe by default against a real service. The environment's credentials are used only with
// --from-env (and the server says so otherwise); the operator's limits (--read-only, --tools, caps on amount and on
// the count of money-moving calls) refuse a call before anyone is asked and before any request; every decision goes
// to the decision log as a JSON line, secrets redacted.
import { until } from '../support/sse-server.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpDecision } from '../../src/mcp/index.js';
import { type RunningReference, startReference } from '../../src/reference/index.js';
import { expectRefusal, ok, SECRET_FORMS, startAgent, startInProcess } from './helpers.js';

let ref: RunningReference;
const dir = mkdtempSync(join(tmpdir(), 'psp-mcp-policy-'));
beforeAll(async () => {
  ref = await startReference({ port: 0, clock: 'manual' });
});
afterAll(async () => {
  await ref?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A payment of `amount` the buyer paid, on the in-process agent's own reference. */
async function paid(agent: Awaited<ReturnType<typeof startInProcess>>, amount: number): Promise<string> {
  const { payment } = ok(await agent.call('payments_create', { amount }));
  ok(await agent.call('buyer_pay', { payment_id: payment.id }));
  return payment.id as string;
}

describe('psp-mcp and the environment', () => {
  it('does not use PSP_BASE_URL/PSP_API_KEY without --from-env, and says so; with it, names the service', async () => {
    const env = { PSP_BASE_URL: ref.base_url, PSP_API_KEY: ref.api_key };
    const unasked = await startAgent([], env);
    try {
      const names = (await unasked.client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('buyer_pay'); // the in-process reference's own tools
      // Written before the server connects; until() waits in event-loop turns, bounded by the test's timeout.
      await until(() =>
        expect(unasked.stderr()).toMatch(/PSP_BASE_URL\/PSP_API_KEY are set but not used: pass --from-env/),
      );
    } finally {
      await unasked.close();
    }
    const asked = await startAgent(['--from-env'], env);
    try {
      const names = (await asked.client.listTools()).tools.map((t) => t.name);
      expect(names).not.toContain('buyer_pay');
      await until(() =>
        expect(asked.stderr()).toContain(
          `driving the service at ${new URL(ref.base_url).origin} (test mode)`,
        ),
      );
      expect(asked.stderr()).not.toMatch(SECRET_FORMS);
    } finally {
      await asked.close();
    }
  });
});

describe("the operator's limits", () => {
  it('--read-only lists and runs only the tools that change nothing', async () => {
    const agent = await startInProcess({}, { readOnly: true });
    try {
      const { tools } = await agent.client.listTools();
      expect(tools.length).toBeGreaterThan(3);
      for (const t of tools.filter((t) => t.name !== 'confirm'))
        expect(t.annotations?.readOnlyHint, t.name).toBe(true);
      expectRefusal(await agent.call('payments_create', { amount: 100 }), 'unknown_tool');
      expect(ok(await agent.call('banks_list')).items).toHaveLength(30);
    } finally {
      await agent.close();
    }
  });

  it('--tools keeps only the tools named (and confirm); an unknown name is refused at start', async () => {
    const agent = await startInProcess({}, { tools: ['banks_list', 'payments_get'] });
    try {
      const names = (await agent.client.listTools()).tools.map((t) => t.name).sort();
      expect(names).toEqual(['banks_list', 'confirm', 'payments_get']);
      expectRefusal(await agent.call('payouts_create', { amount: 100 }), 'unknown_tool');
    } finally {
      await agent.close();
    }
    const run = await startAgent(['--tools', 'banks_list,no_such_tool']).catch((error: unknown) => error);
    expect(run).toBeInstanceOf(Error);
  });

  it('caps: an amount over the per-call limit, past the session limit or after the last money call is refused before anyone is asked', async () => {
    const decisions: McpDecision[] = [];
    const agent = await startInProcess(
      {},
      {
        maxAmountPerCall: 5000,
        maxAmountPerSession: 7000,
        maxMoneyCallsPerSession: 2,
        onDecision: (d) => decisions.push(d),
      },
    );
    try {
      const id = await paid(agent, 20_000);
      const over = await agent.call('payments_refund', { id, amount: 6000 });
      expect(expectRefusal(over, 'over_limit')).toMatch(
        /6000 minor units is above the limit of 5000 per call/,
      );
      expect(over.text).not.toContain('confirmation_token');
      // full: true is the whole balance, 20000: over the cap too, found by reading the payment first.
      expectRefusal(await agent.call('payments_refund', { id, full: true }), 'over_limit');
      // Within the limits: proposed, confirmed, run.
      const first = ok(await agent.call('payments_refund', { id, amount: 4000 }));
      ok(await agent.call('confirm', { confirmation_token: first.confirmation_token }));
      const session = await agent.call('payments_refund', { id, amount: 4000 });
      expect(expectRefusal(session, 'over_limit')).toMatch(/past its limit of 7000 \(4000 moved so far\)/);
      const second = ok(await agent.call('payments_refund', { id, amount: 1000 }));
      ok(await agent.call('confirm', { confirmation_token: second.confirmation_token }));
      expect(expectRefusal(await agent.call('payments_refund', { id, amount: 1 }), 'over_limit')).toMatch(
        /its 2 money-moving calls/,
      );
      expect(ok(await agent.call('payments_get', { id })).amount_refunded).toBe(5000);
      // The decision log: every call, allowed or refused, with why.
      const refunds = decisions.filter((d) => d.tool === 'payments_refund' || d.tool === 'confirm');
      expect(refunds.map((d) => d.decision)).toContain('refused');
      expect(decisions.some((d) => d.decision === 'allowed' && /confirmed/.test(d.why))).toBe(true);
      for (const d of decisions)
        expect(d).toMatchObject({ time: expect.any(String), tool: expect.any(String) });
    } finally {
      await agent.close();
    }
  });

  it('--decision-log appends one JSON line per decision, with no secret', async () => {
    const file = join(dir, 'decisions.jsonl');
    const agent = await startAgent(['--decision-log', file, '--max-amount', '100']);
    try {
      ok(await agent.call('banks_list'));
      expectRefusal(
        await agent.call('payouts_create', { amount: 500, phone: '+79990000000', bank_id: '100000000111' }),
        'over_limit',
      );
    } finally {
      await agent.close();
    }
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as McpDecision);
    expect(lines.map((l) => [l.tool, l.decision])).toEqual([
      ['banks_list', 'allowed'],
      ['payouts_create', 'refused'],
    ]);
    expect(lines[1]!.why).toMatch(/above the limit of 100 per call/);
    expect(readFileSync(file, 'utf8')).not.toMatch(SECRET_FORMS);
  });
});
