// Issue 36 item 5: psp-mcp against its in-process reference, every tool's success and refusal, as an agent calls
// them; the last test scans every answer for a secret.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/schemas/operations.js';
import { AGENTS, type Agent, expectRefusal, ok, SECRET_FORMS } from './helpers.js';

const API_TOOLS = Object.entries(OPERATIONS)
  .filter(([, row]) => 'answer' in row)
  .map(([name]) => name.replace('.', '_'));

let agent: Agent;

const MOVING = ['payments_cancel', 'payments_refund', 'payouts_create', 'webhooks_trigger', 'confirm'];
const READS = [
  'payments_get',
  'payouts_get',
  'banks_list',
  'banks_find',
  'stream_events_since',
  'webhooks_verify',
];

async function newPayment(amount = 150_000): Promise<string> {
  return ok(await agent.call('payments_create', { amount, order_id: `o-${amount}` })).payment.id as string;
}

/** Reads the inbox from `cursor` until a webhook passes `wanted` (deliveries leave after the call that caused them). */
async function inboxUntil(
  cursor: number,
  wanted: (w: any) => boolean,
): Promise<{ hook: any; cursor: number }> {
  for (let c = cursor; ; ) {
    const page = ok(await agent.call('webhooks_inbox', { cursor: c, wait_seconds: 20 }));
    expect(page.webhooks.length, 'no webhook within 20 s').toBeGreaterThan(0);
    const hook = page.webhooks.find(wanted);
    if (hook) return { hook, cursor: page.cursor };
    c = page.cursor;
  }
}

/** Runs a money-moving call through its two steps. */
async function confirmed(name: string, args: Record<string, unknown>) {
  const pending = ok(await agent.call(name, args));
  expect(pending).toMatchObject({
    confirmation_required: true,
    confirmation_token: expect.stringMatching(/^cfm_/),
  });
  return agent.call('confirm', { confirmation_token: pending.confirmation_token });
}

describe.each(AGENTS)('%s', (_, start) => {
  beforeAll(async () => {
    agent = await start();
  });
  afterAll(async () => {
    await agent?.close();
  });

  describe('tools/list', () => {
    it('lists every tool with input and output schemas and annotations; money-moving ones destructive', async () => {
      const { tools } = await agent.client.listTools();
      agent.seen.push(JSON.stringify(tools));
      const byName = new Map(tools.map((t) => [t.name, t]));
      for (const t of tools) {
        expect(t.inputSchema.type, t.name).toBe('object');
        expect(t.outputSchema?.type, t.name).toBe('object');
        expect(t.description, t.name).toEqual(expect.any(String));
        expect(t.annotations, t.name).toMatchObject({
          title: expect.any(String),
          destructiveHint: MOVING.includes(t.name) || t.name === 'state_restore',
        });
      }
      for (const name of MOVING) expect(byName.get(name)?.annotations?.destructiveHint, name).toBe(true);
      for (const name of READS) expect(byName.get(name)?.annotations?.readOnlyHint, name).toBe(true);
      // The API's own fields (openapi.json, from src/schemas), plus the Idempotency-Key.
      const create = byName.get('payments_create')!;
      expect(Object.keys(create.inputSchema.properties ?? {})).toEqual(
        expect.arrayContaining(['amount', 'currency', 'order_id', 'webhook_url', 'idempotency_key']),
      );
      expect(create.inputSchema.required).toEqual(['amount']);
      // The answer inside its envelope: what the service wrote is data (issue 40 item 3).
      expect(create.outputSchema?.required).toEqual(['untrusted_data']);
      const data = (create.outputSchema!.properties as Record<string, { properties?: object }>)
        .untrusted_data;
      expect(Object.keys(data?.properties ?? {})).toEqual(
        expect.arrayContaining(['payment', 'payment_url', 'idempotency_key']),
      );
      // Issue 43 item 3: a tool a new operation brings is one a reader of the guide can find.
      const guide = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'mcp.md'), 'utf8');
      const undocumented = [...byName.keys()].filter((name) => !guide.includes(`\`${name}\``));
      expect(undocumented, 'tools docs/mcp.md does not name in its tables').toEqual([]);
      // A tool per operation of the table that answers JSON (test/mcp/tools/api.test.ts), and psp-mcp's own.
      expect([...byName.keys()].sort()).toEqual(
        [
          ...API_TOOLS,
          'banks_find',
          'buyer_decline',
          'buyer_pay',
          'clock_advance',
          'confirm',
          'deliveries_list',
          'stream_events_since',
          'webhooks_trigger',
          'faults_add',
          'faults_clear',
          'faults_list',
          'readiness_report',
          'requests_assert',
          'state_restore',
          'state_snapshot',
          'webhook_chaos_clear',
          'webhook_chaos_get',
          'webhook_chaos_set',
          'webhooks_assert_delivered',
          'webhooks_inbox',
          'webhooks_resend',
          'webhooks_verify',
        ].sort(),
      );
    });
  });

  describe('payments', () => {
    it('create answers the payment and the Idempotency-Key it made; get reads it; refusals are typed', async () => {
      const created = ok(await agent.call('payments_create', { amount: 1000, order_id: 'A-1' }));
      expect(created).toMatchObject({
        payment: { amount: 1000, status: 'pending' },
        payment_url: expect.any(String),
      });
      expect(created.idempotency_key).toMatch(/^[0-9a-f-]{36}$/);
      expect(ok(await agent.call('payments_get', { id: created.payment.id })).id).toBe(created.payment.id);
      expectRefusal(await agent.call('payments_create', { amount: 0 }), 'invalid_input', 400);
      // The service's own refusal of what PspClient lets through (it accepts fields newer than itself).
      expectRefusal(await agent.call('payments_create', { amount: 1, colour: 'red' }), 'bad_request', 400);
      expectRefusal(
        await agent.call('payments_create', { amount: 1, idempotency_key: 'x'.repeat(65) }),
        'invalid_input',
        400,
      );
      expectRefusal(await agent.call('payments_get', { id: crypto.randomUUID() }), 'not_found', 404);
      expectRefusal(await agent.call('payments_get', {}), 'invalid_input', 400);
    });

    it('a repeated create with one key makes one payment; the key with another body is refused', async () => {
      const args = { amount: 4242, order_id: 'same', idempotency_key: `k-${crypto.randomUUID()}` };
      const first = ok(await agent.call('payments_create', args));
      const again = ok(await agent.call('payments_create', args));
      expect(again.payment.id).toBe(first.payment.id);
      expect(again.idempotent).toBe(true);
      expect(again.idempotency_key).toBe(args.idempotency_key);
      expectRefusal(
        await agent.call('payments_create', { ...args, amount: 4243 }),
        'idempotent_conflict',
        409,
      );
      const { events } = ok(await agent.call('stream_events_since', { limit: 100 }));
      const created = events.filter(
        (e: any) => e.kind === 'payment.created' && e.payload.id === first.payment.id,
      );
      expect(created).toHaveLength(1);
    });

    it('a refund with no confirmation changes nothing; confirm carries it out once', async () => {
      const id = await newPayment();
      ok(await agent.call('buyer_pay', { payment_id: id }));
      const pending = ok(await agent.call('payments_refund', { id, amount: 50_000 }));
      expect(pending.action).toContain(id);
      expect(pending.action).toContain('50000');
      const untouched = ok(await agent.call('payments_get', { id }));
      expect(untouched).toMatchObject({ status: 'succeeded', amount_refunded: 0, refunds: [] });
      const refund = ok(await agent.call('confirm', { confirmation_token: pending.confirmation_token }));
      expect(refund).toMatchObject({
        payment_id: id,
        amount: 50_000,
        idempotency_key: pending.idempotency_key,
      });
      // One use: the same token again moves nothing.
      expectRefusal(
        await agent.call('confirm', { confirmation_token: pending.confirmation_token }),
        'invalid_confirmation',
      );
      expectRefusal(
        await agent.call('confirm', { confirmation_token: 'cfm_made_up' }),
        'invalid_confirmation',
      );
      expect(ok(await agent.call('payments_get', { id })).amount_refunded).toBe(50_000);
    });

    it('a refused refund says why and changes nothing; one above the balance is refused before anyone is asked', async () => {
      const id = await newPayment(2000);
      expectRefusal(await confirmed('payments_refund', { id, full: true }), 'not_succeeded', 409);
      const paid = await newPayment(3000);
      ok(await agent.call('buyer_pay', { payment_id: paid }));
      // Issue 44 item 3: checked against the payment first, so no confirmation is ever proposed for it.
      const above = await agent.call('payments_refund', { id: paid, amount: 999_999 });
      expectRefusal(above, 'amount_exceeds_balance', 422);
      expect(above.text).not.toContain('confirmation_token');
      expect(ok(await agent.call('payments_get', { id: paid })).amount_refunded).toBe(0);
    });

    it('cancel is confirmed first, then refused on a payment no longer pending', async () => {
      const id = await newPayment(5000);
      expect(ok(await confirmed('payments_cancel', { id }))).toEqual({ status: 'cancelled' });
      expectRefusal(await confirmed('payments_cancel', { id }), 'not_pending', 409);
    });
  });

  describe('the buyer, banks and payouts', () => {
    it('the buyer pays or declines; a second press is refused', async () => {
      const id = await newPayment(7000);
      expect(ok(await agent.call('buyer_decline', { payment_id: id })).status).toBe('failed');
      expectRefusal(await agent.call('buyer_pay', { payment_id: id }), 'not_pending', 409);
    });

    it('banks list and find by name; a payout is confirmed, then read', async () => {
      const { items } = ok(await agent.call('banks_list'));
      expect(items.length).toBe(30);
      const one = items[3];
      const found = ok(await agent.call('banks_find', { name: one.name_en.slice(0, 5).toUpperCase() })).items;
      expect(found.map((b: any) => b.member_id)).toContain(one.member_id);
      expect(ok(await agent.call('banks_find', { name: 'no such bank at all' })).items).toEqual([]);
      expectRefusal(await agent.call('banks_find', { name: '' }), 'invalid_input', 400);

      const body = {
        amount: 10_000,
        phone: '+79990000000',
        bank_id: one.member_id,
        full_name: 'Ivan Petrov',
      };
      const created = ok(await confirmed('payouts_create', body));
      expect(created.payout).toMatchObject({ amount: 10_000 });
      expect(ok(await agent.call('payouts_get', { id: created.payout.id })).id).toBe(created.payout.id);
      expectRefusal(await agent.call('payouts_get', { id: crypto.randomUUID() }), 'not_found', 404);
      // Bad input is refused before anything is asked or sent.
      expectRefusal(await agent.call('payouts_create', { ...body, phone: '12345' }), 'invalid_input', 400);
    });
  });

  describe('webhooks and events', () => {
    it('the inbox receives the webhook, verify accepts it and explains a tampered one; deliveries and resend', async () => {
      const { cursor } = ok(await agent.call('webhooks_inbox'));
      const id = await newPayment(9100);
      ok(await agent.call('buyer_pay', { payment_id: id }));
      const { hook, cursor: seen } = await inboxUntil(cursor, (w) => w.body.includes(id));
      const verified = ok(await agent.call('webhooks_verify', { body: hook.body, headers: hook.headers }));
      expect(verified).toMatchObject({ valid: true, event: 'payment.succeeded', data: { id } });
      const why = expectRefusal(
        await agent.call('webhooks_verify', {
          body: hook.body.replace('9100', '9101'),
          headers: hook.headers,
        }),
        'no_matching_signature',
      );
      expect(why).toMatch(/body was altered/);
      expectRefusal(
        await agent.call('webhooks_verify', { body: hook.body, headers: {} }),
        'missing_signature',
      );

      const deliveries = ok(await agent.call('deliveries_list')).items;
      const eventId = hook.headers['x-psp-event-id'];
      expect(deliveries.find((d: any) => d.event_id === eventId)).toMatchObject({
        status_code: 204,
        error: null,
      });
      expect(ok(await agent.call('webhooks_resend', { event_id: eventId }))).toEqual({ resent: eventId });
      const again = await inboxUntil(seen, (w) => w.headers['x-psp-event-id'] === eventId);
      expect(again.hook.body).toBe(hook.body);
      expectRefusal(await agent.call('webhooks_resend', { event_id: 'evt_nope' }), 'not_found', 404);
      expectRefusal(
        await agent.call('deliveries_list', { endpoint_id: crypto.randomUUID() }),
        'not_found',
        404,
      );
    });

    it('events since a cursor: only the newer ones, and waiting for the next', async () => {
      const { cursor } = ok(await agent.call('stream_events_since'));
      const id = await newPayment(9200);
      const page = ok(await agent.call('stream_events_since', { cursor, wait_seconds: 10 }));
      expect(page.stream).toBe('open');
      expect(page.events[0]).toMatchObject({ kind: 'payment.created', payload: { id }, seq: cursor + 1 });
      expect(ok(await agent.call('stream_events_since', { cursor: page.cursor })).events).toEqual([]);
      expectRefusal(await agent.call('stream_events_since', { cursor: -1 }), 'invalid_input', 400);
    });

    it('trigger emits the event after a confirmation', async () => {
      const { cursor } = ok(await agent.call('webhooks_inbox'));
      const result = ok(await confirmed('webhooks_trigger', { event: 'payment.refunded', amount: 1234 }));
      expect(result.event).toBe('payment.refunded');
      const refunded = result.objects[0].data.id;
      const { hook } = await inboxUntil(cursor, (w) => w.body.includes('"payment.refunded"'));
      expect(hook.body).toContain(refunded);
      expectRefusal(
        await agent.call('webhooks_trigger', { event: 'payment.teleported' }),
        'invalid_input',
        400,
      );
    });
  });

  describe('the clock, faults and state', () => {
    it('advances the manual clock; a bad step is refused', async () => {
      const { now } = ok(await agent.call('clock_advance', { seconds: 60 }));
      expect(Date.parse(now)).toBeGreaterThan(Date.now());
      expectRefusal(await agent.call('clock_advance', { seconds: -5 }), 'invalid_input', 400);
    });

    it('fault rules: added, played, listed, cleared; a bad rule is refused', async () => {
      const rule = ok(
        await agent.call('faults_add', { rule: { kind: 'error', status: 503, match: { method: 'GET' } } }),
      );
      expect(rule).toMatchObject({ kind: 'error', status: 503, hits: 0 });
      const id = await newPayment(9400);
      expectRefusal(await agent.call('payments_get', { id }), 'service_unavailable', 503);
      expect(ok(await agent.call('faults_list')).items[0].hits).toBeGreaterThan(0);
      expect(ok(await agent.call('faults_clear'))).toEqual({ cleared: 1 });
      expect(ok(await agent.call('faults_list')).items).toEqual([]);
      expectRefusal(await agent.call('faults_add', { rule: { kind: 'nonsense' } }), 'bad_request', 400);
    });

    it('snapshot and restore: what happened since is gone; an unknown name is refused', async () => {
      ok(await agent.call('state_snapshot', { name: 'before' }));
      const id = await newPayment(9300);
      ok(await agent.call('state_restore', { name: 'before' }));
      expectRefusal(await agent.call('payments_get', { id }), 'not_found', 404);
      expectRefusal(await agent.call('state_restore', { name: 'never' }), 'not_found', 404);
    });
  });

  describe('resources', () => {
    it('serves the spec by section and the guides; an unknown one is refused', async () => {
      const { resources } = await agent.client.listResources();
      const uris = resources.map((r) => r.uri);
      expect(uris).toEqual(
        expect.arrayContaining(['psp://spec', 'psp://spec/4', 'psp://spec/6', 'psp://docs/mcp']),
      );
      for (const uri of uris) {
        const { contents } = await agent.client.readResource({ uri });
        agent.seen.push(JSON.stringify(contents));
      }
      const endpoints = await agent.client.readResource({ uri: 'psp://spec/4' });
      expect((endpoints.contents[0] as { text: string }).text).toMatch(/^## 4\. Endpoints/);
      await expect(agent.client.readResource({ uri: 'psp://spec/99' })).rejects.toThrow(/No resource/);
    });
  });

  describe('secrets', () => {
    it('no answer, resource or stderr line of this file held a key or secret', () => {
      expect(agent.seen.length).toBeGreaterThan(50);
      for (const text of [...agent.seen, agent.stderr()]) expect(text).not.toMatch(SECRET_FORMS);
    });
  });
});
