// payments_refund: a whole refund is said explicitly (issue 44 item 3): `amount: 0` or no amount meant "everything"
// to the API, so one slip of an agent refunded a whole payment. The tool takes `amount` > 0 or `full: true`, exactly
// one, checked before anyone is asked to confirm.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Agent, expectRefusal, ok, startInProcess } from './helpers.js';

let agent: Agent;
beforeAll(async () => {
  agent = await startInProcess();
});
afterAll(() => agent?.close());

async function paid(): Promise<string> {
  const { payment } = ok(await agent.call('payments_create', { amount: 5000 }));
  ok(await agent.call('buyer_pay', { payment_id: payment.id }));
  return payment.id as string;
}

describe('payments_refund: a whole refund is said explicitly', () => {
  it.each([
    ['no amount', {}],
    ['amount 0', { amount: 0 }],
    ['amount and full', { amount: 100, full: true }],
  ])('%s is refused before any confirmation, and nothing is refunded', async (_, args) => {
    const id = await paid();
    const why = expectRefusal(await agent.call('payments_refund', { id, ...args }), 'invalid_input', 400);
    expect(why).toMatch(/full: true/);
    expect(ok(await agent.call('payments_get', { id })).amount_refunded).toBe(0);
  });

  it('full: true refunds the whole remaining balance once confirmed', async () => {
    const id = await paid();
    const proposal = ok(await agent.call('payments_refund', { id, full: true }));
    expect(proposal.action).toContain('the whole remaining balance');
    ok(await agent.call('confirm', { confirmation_token: proposal.confirmation_token }));
    expect(ok(await agent.call('payments_get', { id }))).toMatchObject({
      amount_refunded: 5000,
      status: 'refunded',
    });
  });
});
