import { describe, expect, it } from 'vitest';
import { PspResponseError, PspValidationError } from '../../src/index.js';
import { IdempotencyKey } from '../../src/schemas/inputs.js';
import {
  BANKS,
  client,
  createPaymentResponse,
  json,
  PAYMENT_ID,
  PAYOUT_ID,
  payment,
  payout,
  refund,
  stubFetch,
} from './helpers.js';

async function rejection(p: PromiseLike<unknown>): Promise<PspValidationError> {
  const e = await Promise.resolve(p).then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(PspValidationError);
  return e as PspValidationError;
}

const fields = (e: PspValidationError) => e.issues.map((i) => i.field).sort();

describe('inputs are checked before anything is sent', () => {
  it('payments.create names every bad field and sends nothing', async () => {
    const { fetch, seen } = stubFetch(() => json(createPaymentResponse(), 201));
    const c = client(fetch);
    const e = await rejection(
      c.payments.create({
        amount: 0,
        currency: 'rub',
        method: 'crypto' as 'sbp',
        return_url: 'not a url',
        webhook_url: 'ftp://x.example',
        metadata: { a: 1 as unknown as string },
      }),
    );
    expect(fields(e)).toEqual(['amount', 'currency', 'metadata.a', 'method', 'return_url', 'webhook_url']);
    expect(e.message).toMatch(/^Invalid input: amount: must be at least 1;/);
    expect(seen).toHaveLength(0);
  });

  it.each([
    [{ amount: 1.5 }, 'amount'],
    [{ amount: Number.MAX_SAFE_INTEGER + 1 }, 'amount'],
    [{ amount: '100' }, 'amount'],
    [{}, 'amount'],
    [{ amount: 1, order_id: 'x'.repeat(257) }, 'order_id'],
  ])('payments.create %j -> %s', async (input, field) => {
    const { fetch, seen } = stubFetch(() => json({}));
    const e = await rejection(client(fetch).payments.create(input as { amount: number }));
    expect(fields(e)).toEqual([field]);
    expect(seen).toHaveLength(0);
  });

  it('payouts.create checks phone, bank_id, amount, method', async () => {
    const { fetch, seen } = stubFetch(() => json({}));
    const e = await rejection(
      client(fetch).payouts.create({
        amount: -5,
        phone: '89001234567',
        bank_id: '12345',
        method: 'card' as 'payouts_sbp',
      }),
    );
    expect(fields(e)).toEqual(['amount', 'bank_id', 'method', 'phone']);
    expect(e.issues.find((i) => i.field === 'phone')?.message).toBe(
      'must be +7 followed by exactly 10 digits',
    );
    const e2 = await rejection(
      client(fetch).payouts.create({ amount: 1, phone: '+7900123456', bank_id: '1000000001110' }),
    );
    expect(fields(e2)).toEqual(['bank_id', 'phone']);
    expect(seen).toHaveLength(0);
  });

  it('path ids must be UUIDs; refund checks id, body and key together', async () => {
    const { fetch, seen } = stubFetch(() => json({}));
    const c = client(fetch);
    for (const p of [
      c.payments.get('../banks/sbp'),
      c.payments.cancel(''),
      c.payouts.get(`${PAYOUT_ID}/x`),
      c.payments.get(123 as unknown as string),
    ]) {
      expect(fields(await rejection(p))).toEqual(['id']);
    }
    const e = await rejection(c.payments.refund('nope', { amount: -1 }, { idempotencyKey: 'x'.repeat(65) }));
    expect(fields(e)).toEqual(['amount', 'id', 'idempotencyKey']);
    expect(seen).toHaveLength(0);
  });

  it('Idempotency-Key: at most 64 ASCII characters, spaces allowed inside (spec 5.6)', async () => {
    const { fetch, seen } = stubFetch(() => json(createPaymentResponse(), 201));
    const c = client(fetch);
    for (const bad of ['', 'x'.repeat(65), ' leading space', 'ключ', 'tab\t']) {
      expect(fields(await rejection(c.payments.create({ amount: 1 }, { idempotencyKey: bad })))).toEqual([
        'idempotencyKey',
      ]);
    }
    expect(seen).toHaveLength(0);
    const ok = 'k'.repeat(64);
    const r = await c.payments.create({ amount: 1 }, { idempotencyKey: ok }).withResponse();
    expect(r.idempotencyKey).toBe(ok);
    expect(seen[0]?.headers['idempotency-key']).toBe(ok);
    const spaced = 'order 42 attempt 1';
    const s = await c.payments.create({ amount: 1 }, { idempotencyKey: spaced }).withResponse();
    expect(s.idempotencyKey).toBe(spaced);
    expect(seen[1]?.headers['idempotency-key']).toBe(spaced);
  });

  it('Idempotency-Key: the rule of the IdempotencyKey schema (the one source the reference uses too), never a copy', async () => {
    const { fetch, seen } = stubFetch(() => json(createPaymentResponse(), 201));
    const c = client(fetch);
    const keys = [
      '',
      'x'.repeat(65),
      'k'.repeat(64),
      'order 42 attempt 1',
      'has space',
      'ключ',
      'tab\t',
      'a-1_B.2',
    ];
    for (const key of keys) {
      const schemaOk = IdempotencyKey.safeParse(key).success;
      const before = seen.length;
      const r = await c.payments.create({ amount: 1 }, { idempotencyKey: key }).then(
        () => undefined,
        (e: unknown) => e,
      );
      if (schemaOk) {
        expect(r, key).toBeUndefined();
        expect(seen[before]?.headers['idempotency-key']).toBe(key);
      } else {
        expect(fields(r as PspValidationError), key).toEqual(['idempotencyKey']);
        expect(seen).toHaveLength(before);
      }
    }
    // Spec 5.6: at most 64 characters, whatever else the rule allows.
    expect(IdempotencyKey.safeParse('x'.repeat(65)).success).toBe(false);
    expect(IdempotencyKey.safeParse('k'.repeat(64)).success).toBe(true);
  });

  it('per-call options are checked', async () => {
    const { fetch, seen } = stubFetch(() => json(payment()));
    const c = client(fetch);
    const e = await rejection(
      c.payments.get(PAYMENT_ID, { timeout: -1, maxRetries: 1.5, signal: {} as AbortSignal }),
    );
    expect(fields(e)).toEqual(['maxRetries', 'signal', 'timeout']);
    expect(seen).toHaveLength(0);
  });

  it('a body JSON cannot encode is a validation error, not a TypeError', async () => {
    const { fetch, seen } = stubFetch(() => json({}));
    const cyclic: Record<string, unknown> = { amount: 1 };
    cyclic.self = cyclic;
    const e = await rejection(client(fetch).payments.create(cyclic as { amount: number }));
    expect(fields(e)).toEqual(['(body)']);
    const e2 = await rejection(client(fetch).request('POST', '/payments', { body: { n: 1n } }));
    expect(fields(e2)).toEqual(['(body)']);
    expect(seen).toHaveLength(0);
  });

  it('sends the body exactly as given, unknown fields included (a newer server may accept them)', async () => {
    const { fetch, seen } = stubFetch(() => json(createPaymentResponse(), 201));
    await client(fetch).payments.create({ amount: 5, future_field: 'x' } as { amount: number });
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({ amount: 5, future_field: 'x' });
    expect(seen[0]?.headers['content-type']).toBe('application/json');
  });
});

describe('responses: tolerant by default, strict on request', () => {
  const grown = {
    ...payment({ status: 'on_hold', method: 'crypto', loyalty_points: 12 }),
    refunds: [{ ...refund(), status: 'reversed', new_flag: true }],
  };

  it('tolerant mode keeps new fields and new enum values', async () => {
    const { fetch } = stubFetch(() => json(grown));
    const p = await client(fetch).payments.get(PAYMENT_ID);
    expect(p.status).toBe('on_hold');
    expect((p as Record<string, unknown>).loyalty_points).toBe(12);
    expect(p.refunds[0]?.status).toBe('reversed');
  });

  it('tolerant mode accepts missing optional fields and nulls', async () => {
    const { fetch } = stubFetch(() => json({ id: PAYMENT_ID, status: 'pending', amount: 5 }));
    const p = await client(fetch).payments.get(PAYMENT_ID);
    expect(p.id).toBe(PAYMENT_ID);
  });

  it('strict mode rejects a new field or a new enum value, naming the path', async () => {
    const { fetch } = stubFetch(() => json(grown));
    const e = await client(fetch, { strict: true })
      .payments.get(PAYMENT_ID)
      .then(
        () => undefined,
        (x: unknown) => x,
      );
    expect(e).toBeInstanceOf(PspResponseError);
    const issues = (e as PspResponseError).issues.map((i) => i.field);
    expect(issues).toEqual(expect.arrayContaining(['status', 'method', 'refunds.0.status']));
    expect((e as PspResponseError).status).toBe(200);
  });

  it('strict mode accepts the spec-exact objects of every endpoint', async () => {
    const { fetch } = stubFetch((req) => {
      const path = new URL(req.url).pathname;
      if (path.endsWith('/cancel')) return json({ status: 'cancelled' });
      if (path.endsWith('/refund')) return json(refund(), 201);
      if (path.endsWith('/banks/sbp')) return json(BANKS);
      if (path.endsWith('/payouts')) return json({ payout: payout(), mode: 'test' }, 201);
      if (path.includes('/payouts/')) return json(payout());
      if (path.endsWith('/payments')) return json(createPaymentResponse({ simulator: 'success' }), 201);
      return json(payment());
    });
    const c = client(fetch, { strict: true });
    expect((await c.payments.create({ amount: 1 })).payment.id).toBe(PAYMENT_ID);
    expect((await c.payments.get(PAYMENT_ID)).status).toBe('pending');
    expect(await c.payments.cancel(PAYMENT_ID)).toEqual({ status: 'cancelled' });
    expect((await c.payments.refund(PAYMENT_ID, { amount: 500 })).amount).toBe(500);
    expect(
      (await c.payouts.create({ amount: 1, phone: '+79001234567', bank_id: '100000000111' })).payout.id,
    ).toBe(PAYOUT_ID);
    expect((await c.payouts.get(PAYOUT_ID)).recipient.bank_id).toBe('100000000111');
    expect((await c.banks.list()).items).toHaveLength(2);
  });

  it('a body that is not JSON, or not an object where one is needed, is a PspResponseError', async () => {
    for (const res of [new Response('<html>', { status: 200 }), json([1, 2]), json({ id: 5 })]) {
      const { fetch } = stubFetch(() => res);
      await expect(client(fetch).payments.get(PAYMENT_ID)).rejects.toBeInstanceOf(PspResponseError);
    }
  });

  it('a response error on a create carries the key that was sent', async () => {
    const { fetch } = stubFetch(() => new Response('oops', { status: 201 }));
    const e = (await client(fetch)
      .payments.create({ amount: 1 }, { idempotencyKey: 'kk' })
      .then(
        () => undefined,
        (x: unknown) => x,
      )) as PspResponseError;
    expect(e.idempotencyKey).toBe('kk');
    expect(e.status).toBe(201);
  });
});
