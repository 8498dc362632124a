import { afterEach, describe, expect, it } from 'vitest';
import type { RunningReference } from '../../src/reference/index.js';
import { merchant, PHONE, startRef } from './setup.js';

// waitFor's unit tests, on a stubbed fetch, are in test/resources/wait-for-calls.test.ts.

describe('waitFor against the reference', () => {
  let ref: RunningReference | undefined;
  afterEach(async () => {
    await ref?.close();
    ref = undefined;
  });

  it('sees a payment succeed through the app’s stream, and a payout fail by polling', async () => {
    ref = await startRef();
    const { client: c } = await merchant(ref, { logLevel: 'off' });
    const stream = c.events.stream();
    const kinds: string[] = [];
    const reading = (async () => {
      for await (const ev of stream) kinds.push(ev.kind);
    })();
    // The stream is live once it has carried an event.
    for (let i = 0; i < 200 && !kinds.includes('payment.created'); i++) {
      await c.payments.create({ amount: 1000 });
      await new Promise((r) => setTimeout(r, 10));
    }
    const { payment: p } = await c.payments.create({ amount: 1000 });
    // Polling alone would read again only after 30 s: the event is what ends this wait.
    const waiting = c.payments.waitFor(p.id, { until: ['succeeded'], timeout: 10_000 });
    await new Promise((r) => setTimeout(r, 20));
    await ref.control.succeedPayment(p.id);
    expect((await waiting).status).toBe('succeeded');
    stream.close();
    await reading;

    const { items } = await c.banks.list();
    const { payout: po } = await c.payouts.create({
      amount: 500,
      phone: PHONE,
      bank_id: items[0]!.member_id,
    });
    const polled = c.payouts.waitFor(po.id, { pollInterval: 5 });
    await ref.control.failPayout(po.id);
    expect((await polled).status).toBe('failed');
  });
});
