// No payer data in default logs (issue 40 item 6): what a payer wrote or is (their email and phone, a payment's
// description and metadata, a payout's name) never reaches a log line an entry writes by default. Each entry is
// driven down its default logging paths with marker values in those fields, with console and the process's
// stdout and stderr captured; no marker may appear in what they wrote.
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PspClient } from '../../src/index.js';
import { createReference, type Reference } from '../../src/reference/index.js';
import { memoryDedupe } from '../../src/replicas/index.js';
import { createWebhookHandler, onceWebhook, signWebhook, verifyWebhook } from '../../src/webhooks/index.js';
import { startAgent } from '../mcp/helpers.js';

const MARK = {
  email: 'pii.buyer.7f3a@example.test',
  phone: '+79990007733',
  description: 'PII-DESCRIPTION-5d1c',
  metadataValue: 'PII-METADATA-VALUE-8e2b',
  metadataKey: 'pii_metadata_key_4a9f',
  name: 'PII Fullname Qwxz',
  order: 'PII-ORDER-3c7d',
};
const MARKERS = Object.values(MARK);
const SECRET = 'whs_NoPiiLogsWebhookSecret0001';

let written: string[] = [];
beforeEach(() => {
  written = [];
  const capture =
    (name: string) =>
    (...args: unknown[]) => {
      written.push(
        `${name}: ${args.map((a) => (typeof a === 'string' ? a : inspect(a, { depth: 20 }))).join(' ')}`,
      );
    };
  for (const level of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const)
    vi.spyOn(console, level).mockImplementation(capture(`console.${level}`));
  for (const stream of ['stdout', 'stderr'] as const)
    vi.spyOn(process[stream], 'write').mockImplementation((chunk: unknown) => {
      written.push(`${stream}: ${String(chunk)}`);
      return true;
    });
});
afterEach(() => vi.restoreAllMocks());

/** The markers found in what was written. */
const leaked = () => MARKERS.filter((m) => written.some((line) => line.includes(m)));

/** A payment event as the service sends it, its data full of the payer's details. */
function paymentEvent() {
  return {
    id: 'evt_0b6c6a8e-1f4e-4c55-9f0a-6d2e1c3b5a77',
    event: 'payment.succeeded',
    created_at: '2026-05-06T10:00:00.000Z',
    data: {
      id: '0b6c6a8e-1f4e-4c55-9f0a-6d2e1c3b5a78',
      status: 'succeeded',
      amount: 1000,
      amount_refunded: 0,
      currency: 'RUB',
      order_id: MARK.order,
      description: MARK.description,
      customer_email: MARK.email,
      customer_phone: MARK.phone,
      metadata: { [MARK.metadataKey]: MARK.metadataValue },
    },
  };
}

function signed(payload: object) {
  const { body, headers } = signWebhook(payload, SECRET);
  return new Request('http://merchant.test/webhooks', { method: 'POST', headers, body });
}

describe('default logs carry no payer data', () => {
  it('psp-sdk/webhooks: a handler that throws, under createWebhookHandler and onceWebhook', async () => {
    const boom = () => {
      throw new Error('order store down');
    };
    const handle = createWebhookHandler({ secret: SECRET, on: { 'payment.succeeded': boom } });
    const fallback = createWebhookHandler({ secret: SECRET, fallback: boom });
    expect((await handle(signed(paymentEvent()))).status).toBe(500);
    expect((await fallback(signed(paymentEvent()))).status).toBe(500);
    const { body, headers } = signWebhook(paymentEvent(), SECRET);
    const event = verifyWebhook(body, headers, SECRET);
    expect((await onceWebhook(undefined, event, boom)).status).toBe(500);
    // What was logged is there, and says which event failed and why.
    expect(written.join('\n')).toContain('evt_0b6c6a8e-1f4e-4c55-9f0a-6d2e1c3b5a77');
    expect(written.join('\n')).toContain('payment.succeeded');
    expect(written.join('\n')).toContain('order store down');
    expect(leaked()).toEqual([]);
  });

  // The default level (warn) writes nothing for a failed call, which the caller holds; `info` writes a line per
  // failure and `debug` a line per attempt: none of them carries the payer's details either.
  it.each([undefined, 'info', 'debug'] as const)(
    'psp-sdk: failed calls carrying payer data, log level %s',
    async (logLevel) => {
      const ref: Reference = createReference({ clock: 'manual' });
      try {
        const client = new PspClient({
          apiKey: ref.api_key,
          baseUrl: 'http://ref.test',
          fetch: (input, init) => ref.fetch(new Request(input, init)),
          maxRetries: 0,
          logLevel,
        });
        const payer = {
          order_id: MARK.order,
          description: MARK.description,
          metadata: { [MARK.metadataKey]: MARK.metadataValue },
        };
        // Refused by the client's own check, by the service (422 over the balance), and a payout to an unknown bank.
        await expect(client.payments.create({ amount: -5, ...payer })).rejects.toThrow();
        const { payment } = await client.payments.create({ amount: 1000, ...payer });
        await expect(
          client.payments.refund(payment.id, { amount: 5000, reason: MARK.description }),
        ).rejects.toThrow();
        await expect(
          client.payouts.create({
            amount: 100,
            phone: MARK.phone,
            bank_id: '999999999999',
            full_name: MARK.name,
          }),
        ).rejects.toThrow();
        const failures = written.filter((line) => line.includes('psp-sdk: failed')).length;
        // The refund over the balance and the payout to an unknown bank (the input check throws before a call).
        expect(failures).toBe(logLevel === undefined ? 0 : 2);
        expect(leaked()).toEqual([]);
      } finally {
        await ref.close();
      }
    },
  );

  it("psp-sdk/reference: its log lines (the CLI's request lines), for requests full of payer data", async () => {
    const lines: string[] = [];
    const ref = createReference({ clock: 'manual', logger: (line) => lines.push(line) });
    try {
      const client = new PspClient({
        apiKey: ref.api_key,
        baseUrl: 'http://ref.test',
        fetch: (input, init) => ref.fetch(new Request(input, init)),
        maxRetries: 0,
      });
      const { payment } = await client.payments.create({
        amount: 1000,
        order_id: MARK.order,
        description: MARK.description,
        metadata: { [MARK.metadataKey]: MARK.metadataValue },
      });
      await expect(
        client.payments.refund(payment.id, { amount: 5000, reason: MARK.description }),
      ).rejects.toThrow();
      await client.payouts.create({
        amount: 100,
        phone: MARK.phone,
        bank_id: '100000000111',
        full_name: MARK.name,
      });
      expect(lines.length).toBe(3);
      written.push(...lines);
      expect(leaked()).toEqual([]);
    } finally {
      await ref.close();
    }
  });

  // Replicas: the shared dedupe store's paths (a claimed run that throws, a store that cannot be reached) report
  // through the same default onError.
  it('psp-sdk/replicas: a handler that throws under a memoryDedupe store, and a store that is down', async () => {
    const { body, headers } = signWebhook(paymentEvent(), SECRET);
    const event = verifyWebhook(body, headers, SECRET);
    const boom = () => {
      throw new Error('replica order store down');
    };
    const handle = createWebhookHandler({
      secret: SECRET,
      dedupe: memoryDedupe(),
      on: { 'payment.succeeded': boom },
    });
    expect((await handle(signed(paymentEvent()))).status).toBe(500);
    const down = {
      begin: () => Promise.reject(new Error('dedupe store down')),
      finish: () => Promise.resolve(),
      drop: () => Promise.resolve(),
    };
    expect((await onceWebhook(down as never, event, () => undefined)).status).toBe(503);
    expect((await onceWebhook(down as never, event, boom, { onStoreError: 'run' })).status).toBe(500);
    expect(written.join('\n')).toContain('replica order store down');
    expect(written.join('\n')).toContain('dedupe store down');
    expect(leaked()).toEqual([]);
  });

  // psp-mcp writes its own lines to stderr (stdout is the protocol's): the bin over stdio, its in-process reference,
  // driven with payer data through creation, a read and refusals.
  it("psp-mcp: the bin's stderr, for tool calls full of payer data", async () => {
    const agent = await startAgent();
    try {
      const made = await agent.call('payments_create', {
        amount: 1000,
        order_id: MARK.order,
        description: MARK.description,
        metadata: { [MARK.metadataKey]: MARK.metadataValue },
      });
      expect(made.isError).toBe(false);
      await agent.call('payments_get', { id: made.data.payment.id });
      expect(
        (await agent.call('payments_create', { amount: 0, description: MARK.description })).isError,
      ).toBe(true);
      const payout = { amount: 100, phone: MARK.phone, bank_id: '1', full_name: MARK.name };
      expect((await agent.call('payouts_create', payout)).isError).toBe(true);
    } finally {
      await agent.close();
    }
    expect(agent.stderr()).toContain('psp-mcp:');
    written.push(agent.stderr());
    expect(leaked()).toEqual([]);
  }, 120_000);
});
