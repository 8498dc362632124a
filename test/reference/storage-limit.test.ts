import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/reference/domain/clock.js';
import { Domain } from '../../src/reference/domain/core.js';
import { DEFAULTS } from '../../src/reference/domain/defaults.js';
import { DomainError } from '../../src/reference/domain/errors.js';
import type { DomainEvent } from '../../src/reference/domain/events.js';
import { StorageQuota } from '../../src/reference/domain/quota.js';
import { LIMITS } from '../../src/schemas/limits.js';
import { expectError, payoutInput, setup } from './helpers.js';

const BODY = { amount: 1000 };
const COST = StorageQuota.cost(BODY);

function world(limit: number) {
  const clock = new ManualClock(Date.parse('2026-05-06T10:00:00.000Z'));
  const domain = new Domain({ clock, maxStoredBytesPerMerchant: limit });
  const events: DomainEvent[] = [];
  domain.bus.subscribe((e) => events.push(e));
  const caller = domain.caller(domain.accounts.createMerchant('Full').key);
  const other = domain.caller(domain.accounts.createMerchant('Other').key);
  return { domain, events, caller, other };
}

function refusal(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('storage bound per merchant (domain)', () => {
  it('counts each object as its overhead plus its JSON, and refuses the creation that would pass the bound', () => {
    expect(COST).toBe(DEFAULTS.storedObjectBytes + JSON.stringify(BODY).length);
    const { domain, caller } = world(3 * COST);
    for (let i = 0; i < 3; i++) domain.payments.create(caller, BODY, undefined, 'http://x');
    expect(domain.quota.used(caller.merchant.id)).toBe(3 * COST);
    const e = refusal(() => domain.payments.create(caller, BODY, undefined, 'http://x'));
    expect([e.status, e.code]).toEqual([409, 'storage_limit_reached']);
    expect(e.message).toContain('restore a snapshot or restart');
  });

  it('a refused creation changes nothing: no record, no event, no idempotency key, no usage', () => {
    const { domain, events, caller } = world(2 * COST);
    const first = domain.payments.create(caller, BODY, 'key-1', 'http://x');
    domain.payments.create(caller, BODY, undefined, 'http://x');
    const before = {
      payments: domain.payments.size,
      events: events.length,
      keys: domain.idempotency.size,
      used: domain.quota.used(caller.merchant.id),
    };
    expect(refusal(() => domain.payments.create(caller, BODY, 'key-2', 'http://x')).code).toBe(
      'storage_limit_reached',
    );
    expect({
      payments: domain.payments.size,
      events: events.length,
      keys: domain.idempotency.size,
      used: domain.quota.used(caller.merchant.id),
    }).toEqual(before);
    // A replay creates nothing, so a full merchant still gets its earlier answer.
    const replay = domain.payments.create(caller, BODY, 'key-1', 'http://x');
    expect(replay.status).toBe(200);
    expect(replay.body.payment.id).toBe(first.body.payment.id);
  });

  it('bounds refunds and payouts too, and each merchant on its own', () => {
    const { domain, caller, other } = world(2 * COST + 100);
    const p = domain.payments.create(caller, BODY, undefined, 'http://x').body.payment.id;
    domain.payments.buyerAct(p, 'pay');
    domain.refunds.create(caller, p, { amount: 1 }, undefined);
    expect(refusal(() => domain.refunds.create(caller, p, { amount: 1 }, undefined)).code).toBe(
      'storage_limit_reached',
    );
    expect(domain.payments.get(p).amountRefunded).toBe(1);
    expect(refusal(() => domain.payouts.create(caller, payoutInput(), undefined)).code).toBe(
      'storage_limit_reached',
    );
    expect(domain.payouts.size).toBe(0);
    expect(domain.payments.create(other, BODY, undefined, 'http://x').status).toBe(201);
  });

  it('a refused request with a bad body is refused for its body first and costs nothing', () => {
    const { domain, caller } = world(COST);
    expect(refusal(() => domain.payments.create(caller, { amount: -1 }, undefined, 'http://x')).code).toBe(
      'bad_request',
    );
    expect(domain.quota.used(caller.merchant.id)).toBe(0);
  });
});

describe('storage bound per merchant (HTTP, default bound)', () => {
  let env: ReturnType<typeof setup>;
  afterEach(() => env?.ref.close());

  it('one key filling 128 MiB with the largest payments gets 409 storage_limit_reached; a restore makes room', async () => {
    env = setup();
    const clean = await env.ref.control.snapshot();
    const big = {
      amount: 1000,
      description: 'd'.repeat(LIMITS.descriptionMax),
      order_id: 'o'.repeat(LIMITS.orderIdMax),
      metadata: Object.fromEntries(
        Array.from({ length: LIMITS.metadataMaxKeys }, (_, i) => [
          `k${i}`.padEnd(LIMITS.metadataKeyMax, 'k'),
          'v'.repeat(LIMITS.metadataValueMax),
        ]),
      ),
    };
    const raw = JSON.stringify(big);
    const fits = Math.floor(DEFAULTS.maxStoredBytesPerMerchant / StorageQuota.cost(big));
    const headers = { authorization: `Bearer ${env.ref.api_key}`, 'content-type': 'application/json' };
    const post = (path: string, body: string, extra: Record<string, string> = {}) =>
      env.ref.fetch(
        new Request(`http://ref.test/api/v1/public${path}`, {
          method: 'POST',
          headers: { ...headers, ...extra },
          body,
        }),
      );
    let first = '';
    for (let i = 0; i < fits; i++) {
      if (i % 900 === 899) env.advance(1); // the next rate-limit window
      const res = await post('/payments', raw, i === 0 ? { 'idempotency-key': 'first' } : {});
      if (res.status !== 201) throw new Error(`creation ${i}: ${res.status} ${await res.text()}`);
      const { payment } = (await res.json()) as { payment: { id: string } };
      if (i === 0) first = payment.id;
    }
    expectError(await env.call('/payments', { body: big }), 409, 'storage_limit_reached');
    // What room is left takes small payments, fewer than one large one's worth, until the bound.
    let small = 0;
    while ((await env.call('/payments', { body: BODY })).status === 201) small++;
    expect(small).toBeLessThanOrEqual(Math.ceil(StorageQuota.cost(big) / COST));
    expectError(await env.call('/payments', { body: BODY }), 409, 'storage_limit_reached');
    expectError(await env.call('/payouts', { body: payoutInput() }), 409, 'storage_limit_reached');
    await env.ref.control.succeedPayment(first);
    expectError(
      await env.call(`/payments/${first}/refund`, { body: { amount: 1 } }),
      409,
      'storage_limit_reached',
    );
    expect((await env.call(`/payments/${first}`)).body.amount_refunded).toBe(0);
    const replay = await post('/payments', raw, { 'idempotency-key': 'first' });
    expect(replay.status).toBe(200);
    expect(((await replay.json()) as { payment: { id: string } }).payment.id).toBe(first);

    await env.ref.control.restore(clean);
    expect((await env.call('/payments', { body: big })).status).toBe(201);
  }, 180_000); // CPU-bound (128 MiB of payments): seconds idle, over a minute beside two busy loops
});
