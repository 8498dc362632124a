// Issue 36 item 2: where the client supports MCP elicitation, a money-moving tool asks there and then; a "no"
// (or a cancel) changes nothing.
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENTS, type Agent, expectRefusal, ok, SECRET_FORMS } from './helpers.js';

let agent: Agent;
const asked: string[] = [];
let reply: { action: 'accept' | 'decline' | 'cancel'; content?: { confirm: boolean } };

async function paidPayment(): Promise<string> {
  const id = ok(await agent.call('payments_create', { amount: 80_000 })).payment.id as string;
  ok(await agent.call('buyer_pay', { payment_id: id }));
  return id;
}

describe.each(AGENTS)('%s', (_, start) => {
  beforeAll(async () => {
    agent = await start({ elicitation: {} });
    agent.client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return reply;
    });
  });
  afterAll(async () => {
    await agent?.close();
  });

  describe('confirmation by elicitation', () => {
    it('a yes carries the refund out in the same call', async () => {
      const id = await paidPayment();
      reply = { action: 'accept', content: { confirm: true } };
      const refund = ok(await agent.call('payments_refund', { id, amount: 30_000 }));
      expect(refund).toMatchObject({ payment_id: id, amount: 30_000 });
      expect(asked.at(-1)).toContain(`Refund 30000 minor units of payment ${id}`);
      expect(ok(await agent.call('payments_get', { id })).amount_refunded).toBe(30_000);
    });

    it.each([
      ['declined', { action: 'decline' as const }],
      ['cancelled', { action: 'cancel' as const }],
      ['accepted unticked', { action: 'accept' as const, content: { confirm: false } }],
    ])('%s: nothing changes', async (_, answer) => {
      const id = await paidPayment();
      const before = asked.length;
      reply = answer;
      const why = expectRefusal(await agent.call('payments_refund', { id, full: true }), 'not_confirmed');
      expect(why).toContain(id);
      expect(asked.length).toBe(before + 1);
      expect(ok(await agent.call('payments_get', { id }))).toMatchObject({ amount_refunded: 0, refunds: [] });
    });

    it('answers held no secret', () => {
      for (const text of [...agent.seen, ...asked, agent.stderr()]) expect(text).not.toMatch(SECRET_FORMS);
    });
  });
});
