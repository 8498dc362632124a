import { describe, expect, it } from 'vitest';
import {
  ConflictError,
  IdempotentConflictError,
  NotFoundError,
  NotPendingError,
  PspValidationError,
  UnprocessableEntityError,
} from '../../src/index.js';
import { failure, merchant, referenceForFile, UNKNOWN_ID } from './setup.js';

const file = referenceForFile();

describe('payments against the reference over HTTP', () => {
  it('create (201) then get, with the payment page and the planned outcome', async () => {
    const { client } = await merchant(file.ref);
    const r = await client.payments
      .create({
        amount: 249_900,
        order_id: 'A-1042',
        metadata: { channel: 'web' },
        description: 'Кофемашина',
      })
      .withResponse();
    expect(r.response.status).toBe(201);
    expect(r.data.mode).toBe('test');
    expect(r.data.simulator).toBe('succeeded');
    expect(r.data.payment.status).toBe('pending');
    expect(r.data.payment_url).toBe(`${file.ref.pay_url}/${r.data.payment.id}`);
    expect(r.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    const got = await client.payments.get(r.data.payment.id);
    expect(got).toMatchObject({ id: r.data.payment.id, amount: 249_900, order_id: 'A-1042', refunds: [] });
    expect(got.metadata).toEqual({ channel: 'web' });
  });

  it('a synchronous refusal (amount ending in 902) carries failure_code', async () => {
    const { client } = await merchant(file.ref);
    const r = await client.payments.create({ amount: 10_902 });
    expect(r.payment.status).toBe('failed');
    expect(r.failure_code).toBe('payment_declined');
    expect(typeof r.failure_message).toBe('string');
  });

  it('Idempotency-Key: a replay answers 200 idempotent with the same payment; another body is 409', async () => {
    const { client } = await merchant(file.ref);
    const first = await client.payments
      .create({ amount: 1000 }, { idempotencyKey: 'order-1' })
      .withResponse();
    const again = await client.payments
      .create({ amount: 1000 }, { idempotencyKey: 'order-1' })
      .withResponse();
    expect(again.response.status).toBe(200);
    expect(again.data.idempotent).toBe(true);
    expect(again.data.payment.id).toBe(first.data.payment.id);
    const e = await failure(client.payments.create({ amount: 2000 }, { idempotencyKey: 'order-1' }));
    expect(e).toBeInstanceOf(IdempotentConflictError);
    expect((e as IdempotentConflictError).status).toBe(409);
    expect((e as IdempotentConflictError).idempotencyKey).toBe('order-1');
  });

  it('cancel: 200 cancelled, then 409 not_pending', async () => {
    const { client } = await merchant(file.ref);
    const { payment } = await client.payments.create({ amount: 5_000 });
    expect(await client.payments.cancel(payment.id)).toEqual({ status: 'cancelled' });
    expect((await client.payments.get(payment.id)).status).toBe('cancelled');
    const e = await failure(client.payments.cancel(payment.id));
    expect(e).toBeInstanceOf(NotPendingError);
    expect((e as NotPendingError).code).toBe('not_pending');
  });

  it('cancel whose answer is lost: the retry gets not_pending and the call still succeeds', async () => {
    let dropped = false;
    const lossy: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const url = input instanceof Request ? input.url : String(input);
      if (!dropped && url.endsWith('/cancel')) {
        dropped = true;
        await res.body?.cancel();
        throw new TypeError('fetch failed: connection reset');
      }
      return res;
    };
    const { client } = await merchant(file.ref, { fetch: lossy, maxRetryDelay: 0 });
    const { payment } = await client.payments.create({ amount: 5_000 });
    const r = await client.payments.cancel(payment.id).withResponse();
    expect(dropped).toBe(true);
    expect(r.data).toEqual({ status: 'cancelled' });
    expect(r.attempts).toBe(3);
  });

  it('cancel of a paid payment stays NotPendingError even after a lost answer', async () => {
    let dropped = false;
    const lossy: typeof fetch = async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (!dropped && url.endsWith('/cancel')) {
        dropped = true;
        throw new TypeError('fetch failed');
      }
      return fetch(input, init);
    };
    const { client } = await merchant(file.ref, { fetch: lossy, maxRetryDelay: 0 });
    const { payment } = await client.payments.create({ amount: 5_000 });
    await file.ref.control.succeedPayment(payment.id);
    expect(await failure(client.payments.cancel(payment.id))).toBeInstanceOf(NotPendingError);
  });

  it('refund: partial (201), replay (200), the rest, then 409; above the balance 422', async () => {
    const { client } = await merchant(file.ref);
    const { payment } = await client.payments.create({ amount: 10_000 });
    await file.ref.control.succeedPayment(payment.id);
    const part = await client.payments
      .refund(payment.id, { amount: 3_000, reason: 'one item returned' }, { idempotencyKey: 'rf-1' })
      .withResponse();
    expect(part.response.status).toBe(201);
    expect(part.data).toMatchObject({ payment_id: payment.id, amount: 3_000, reason: 'one item returned' });
    const replay = await client.payments
      .refund(payment.id, { amount: 3_000, reason: 'one item returned' }, { idempotencyKey: 'rf-1' })
      .withResponse();
    expect(replay.response.status).toBe(200);
    expect(replay.data.id).toBe(part.data.id);
    const tooMuch = await failure(client.payments.refund(payment.id, { amount: 7_001 }));
    expect(tooMuch).toBeInstanceOf(UnprocessableEntityError);
    expect((tooMuch as UnprocessableEntityError).status).toBe(422);
    const rest = await client.payments.refund(payment.id);
    expect(rest.amount).toBe(7_000);
    const after = await client.payments.get(payment.id);
    expect(after.amount_refunded).toBe(10_000);
    expect(after.refunds.map((r) => r.amount)).toEqual([3_000, 7_000]);
    const full = await failure(client.payments.refund(payment.id, { amount: 1 }));
    expect(full).toBeInstanceOf(ConflictError);
    expect((full as ConflictError).status).toBe(409);
  });

  it('refund of a payment that has not succeeded is 409', async () => {
    const { client } = await merchant(file.ref);
    const { payment } = await client.payments.create({ amount: 10_000 });
    const e = await failure(client.payments.refund(payment.id, { amount: 100 }));
    expect(e).toBeInstanceOf(ConflictError);
    expect(e).not.toBeInstanceOf(NotPendingError);
  });

  it('404 for an id that is not ours, on get, cancel and refund', async () => {
    const a = await merchant(file.ref);
    const b = await merchant(file.ref);
    const { payment } = await a.client.payments.create({ amount: 1000 });
    for (const call of [
      () => b.client.payments.get(payment.id),
      () => b.client.payments.cancel(payment.id),
      () => b.client.payments.refund(payment.id),
      () => a.client.payments.get(UNKNOWN_ID),
    ]) {
      const e = await failure(call());
      expect(e).toBeInstanceOf(NotFoundError);
      expect((e as NotFoundError).code).toBe('not_found');
    }
  });

  it('the status after the buyer pays, and after expiry on the service clock', async () => {
    const { client } = await merchant(file.ref);
    const paid = (await client.payments.create({ amount: 1000 })).payment;
    await file.ref.control.succeedPayment(paid.id);
    const p = await client.payments.get(paid.id);
    expect(p.status).toBe('succeeded');
    const late = (await client.payments.create({ amount: 1000 })).payment;
    await file.ref.control.expirePayment(late.id);
    expect((await client.payments.get(late.id)).status).toBe('expired');
  });

  it('bad input is refused by the client, and the raw path gets the server 400', async () => {
    const { client } = await merchant(file.ref);
    expect(await failure(client.payments.create({ amount: 0 }))).toBeInstanceOf(PspValidationError);
    const e = await failure(client.request('POST', '/payments', { body: { amount: 0 } }));
    expect(e).toMatchObject({ status: 400, code: 'bad_request' });
  });
});
