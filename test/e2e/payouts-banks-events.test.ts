import { describe, expect, it } from 'vitest';
import { BadRequestError, NotFoundError, PspClient, UnprocessableEntityError } from '../../src/index.js';
import type { SseEvent } from '../../src/index.js';
import { failure, merchant, PHONE, referenceForFile, UNKNOWN_ID } from './setup.js';

const file = referenceForFile();

describe('banks and payouts against the reference over HTTP', () => {
  it('banks.list: the 30 participants, strictly shaped, cached', async () => {
    const { client } = await merchant(file.ref);
    const { items } = await client.banks.list();
    expect(items).toHaveLength(30);
    for (const b of items) expect(b.member_id).toMatch(/^\d{12}$/);
    expect(await client.banks.list()).toEqual({ items });
  });

  it('payouts: create (201) to a directory bank, replay (200), get, and the planned outcome on the clock', async () => {
    const { client } = await merchant(file.ref);
    const bank = (await client.banks.list()).items[0];
    const input = { amount: 50_000, phone: PHONE, bank_id: bank?.member_id ?? '', full_name: 'Иван Петров' };
    const r = await client.payouts.create(input, { idempotencyKey: 'w-1' }).withResponse();
    expect(r.response.status).toBe(201);
    expect(r.data.payout.recipient).toMatchObject({ phone: PHONE, bank_id: bank?.member_id });
    expect(r.data.payout.status).toBe('pending');
    const replay = await client.payouts.create(input, { idempotencyKey: 'w-1' }).withResponse();
    expect(replay.response.status).toBe(200);
    expect(replay.data.idempotent).toBe(true);
    expect(replay.data.payout.id).toBe(r.data.payout.id);
    await file.ref.control.advanceClock(10);
    expect((await client.payouts.get(r.data.payout.id)).status).toBe('succeeded');
  });

  it('payout refused at creation carries failure_reason; a declined one fails on the clock', async () => {
    const { client } = await merchant(file.ref);
    const refused = await client.payouts.create({ amount: 50_902, phone: PHONE, bank_id: '100000000111' });
    expect(refused.failure_reason).toBeTruthy();
    const declined = await client.payouts.create({ amount: 50_901, phone: PHONE, bank_id: '100000000111' });
    await file.ref.control.advanceClock(10);
    const after = await client.payouts.get(declined.payout.id);
    expect(after.status).toBe('failed');
    expect(after.fail_reason).toBeTruthy();
  });

  it('422 when the route is not configured or the bank is not in the directory; 404 for an unknown payout', async () => {
    const { m, client } = await merchant(file.ref);
    const notInDirectory = await failure(
      client.payouts.create({ amount: 100, phone: PHONE, bank_id: '999999999999' }),
    );
    expect(notInDirectory).toBeInstanceOf(UnprocessableEntityError);
    expect((notInDirectory as UnprocessableEntityError).status).toBe(422);
    await file.ref.control.updateMerchant(m.merchant_id, { payouts_enabled: false });
    const noRoute = await failure(
      client.payouts.create({ amount: 100, phone: PHONE, bank_id: '100000000111' }),
    );
    expect(noRoute).toBeInstanceOf(UnprocessableEntityError);
    const missing = await failure(client.payouts.get(UNKNOWN_ID));
    expect(missing).toBeInstanceOf(NotFoundError);
  });

  it('400 bad_request from the server for a body the client would have refused (sent raw)', async () => {
    const { client } = await merchant(file.ref);
    const e = await failure(
      client.request('POST', '/payouts', { body: { amount: 100, phone: '89001234567', bank_id: '1' } }),
    );
    expect(e).toBeInstanceOf(BadRequestError);
    expect(e).toMatchObject({ status: 400, code: 'bad_request' });
  });
});

describe('events.stream against the reference', () => {
  it('delivers payment.created and payment.status_changed for this merchant', async () => {
    const { client } = await merchant(file.ref);
    const stream = client.events.stream();
    const seen: SseEvent[] = [];
    const reading = (async () => {
      for await (const ev of stream) {
        seen.push(ev);
        if (ev.kind === 'payment.status_changed') break;
      }
    })();
    // The first create may race the connection; create until the stream has seen one (bounded).
    let paymentId = '';
    for (let i = 0; i < 50 && seen.length === 0; i++) {
      paymentId = (await client.payments.create({ amount: 1000 })).payment.id;
      await new Promise((r) => setImmediate(r));
    }
    const created = seen.find((e) => e.kind === 'payment.created');
    expect(created?.payload).toMatchObject({ status: 'pending', amount: 1000 });
    const target = created?.payload.id ?? paymentId;
    await client.payments.cancel(target);
    await reading;
    stream.close();
    expect(seen.at(-1)).toMatchObject({
      kind: 'payment.status_changed',
      payload: { id: target, status: 'cancelled' },
    });
  });

  it('connects with the empty-body signature when the terminal requires signing', async () => {
    const { m } = await merchant(file.ref);
    await file.ref.control.updateTerminal(m.terminal_id, { require_signature: true });
    const signed = new PspClient({
      apiKey: m.api_key,
      baseUrl: file.ref.base_url,
      signingSecret: m.signing_secret,
    });
    const stream = signed.events.stream();
    const first = (async () => {
      for await (const ev of stream) return ev;
      return undefined;
    })();
    let ev: SseEvent | undefined;
    for (let i = 0; i < 50 && !ev; i++) {
      await signed.payments.create({ amount: 1000 });
      ev = await Promise.race([first, new Promise<undefined>((r) => setTimeout(() => r(undefined), 20))]);
    }
    stream.close();
    expect(ev?.kind).toBe('payment.created');
  });
});
