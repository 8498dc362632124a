// psp-mcp's go-live tools (issue 41 item 5): webhook chaos, the readiness report and the assertions, in reference
// mode; the reading ones read-only and ungated.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Agent, expectRefusal, ok, startInProcess } from './helpers.js';

let agent: Agent;
beforeAll(async () => {
  agent = await startInProcess();
});
afterAll(() => agent?.close());

describe('go-live tools', () => {
  it('are listed; the reading ones read-only, none destructive', async () => {
    const tools = new Map((await agent.client.listTools()).tools.map((t) => [t.name, t]));
    for (const name of [
      'webhook_chaos_get',
      'readiness_report',
      'requests_assert',
      'webhooks_assert_delivered',
    ])
      expect(tools.get(name)?.annotations?.readOnlyHint, name).toBe(true);
    for (const name of ['webhook_chaos_set', 'webhook_chaos_clear'])
      expect(tools.get(name)?.annotations?.destructiveHint, name).toBe(false);
  });

  it('chaos is set, read and cleared; a bad rate is refused naming it', async () => {
    expect(ok(await agent.call('webhook_chaos_get'))).toEqual({ chaos: null });
    const set = ok(await agent.call('webhook_chaos_set', { duplicate: 0.3, reorder: 0.2, seed: 42 }));
    expect(set).toMatchObject({ duplicate: 0.3, reorder: 0.2, seed: 42 });
    expect(ok(await agent.call('webhook_chaos_get')).chaos).toMatchObject({ seed: 42 });
    expectRefusal(await agent.call('webhook_chaos_set', { duplicate: 2 }), 'invalid_input', 400);
    ok(await agent.call('webhook_chaos_clear'));
    expect(ok(await agent.call('webhook_chaos_get'))).toEqual({ chaos: null });
  });

  it('the assertions answer passed or why not; the readiness report reads the traffic', async () => {
    const { payment } = ok(await agent.call('payments_create', { amount: 1500, order_id: 'B-1' }));
    ok(await agent.call('buyer_pay', { payment_id: payment.id }));
    expect(
      ok(await agent.call('requests_assert', { operation: 'payments.create', status: 201 })),
    ).toMatchObject({
      passed: true,
      entry: { operation: 'payments.create' },
    });
    const failed = ok(await agent.call('requests_assert', { operation: 'payments.refund' }));
    expect(failed).toMatchObject({ passed: false });
    expect(failed.message).toContain('nearest');
    expect(ok(await agent.call('requests_assert', { operation: 'payments.refund', refute: true }))).toEqual({
      passed: true,
    });
    await expect
      .poll(
        async () => ok(await agent.call('webhooks_assert_delivered', { event: 'payment.succeeded' })).passed,
      )
      .toBe(true);
    const report = ok(await agent.call('readiness_report'));
    expect(report.items.find((i: { id: string }) => i.id === 'payment-succeeded').exercised).toBe(true);
    expect(report.score).toBeGreaterThan(0);
  });
});
