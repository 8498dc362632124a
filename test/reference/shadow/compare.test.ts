import { describe, expect, it } from 'vitest';
import { type ComparedAnswer, compareAnswers } from '../../../src/reference/shadow/compare.js';
import { IdMap } from '../../../src/reference/shadow/ids.js';

const answer = (status: number, body: unknown, headers: Record<string, string> = {}): ComparedAnswer => ({
  status,
  headers: new Headers({ 'content-type': 'application/json; charset=utf-8', ...headers }),
  body,
});

describe('compareAnswers', () => {
  it("leaves alone the codes spec section 7 does not name (the 401's, the 404's), not the ones it names", () => {
    const refused = (status: number, code: string) => answer(status, { error: { code, message: 'm' } });
    expect(compareAnswers(refused(401, 'invalid_api_key'), refused(401, 'unauthorized'))).toEqual([]);
    expect(compareAnswers(refused(404, 'payment_not_found'), refused(404, 'not_found'))).toEqual([]);
    expect(compareAnswers(refused(403, 'forbidden'), refused(403, 'ip_not_allowed'))).toEqual([
      { kind: 'error_code', upstream: 'forbidden', replay: 'ip_not_allowed' },
    ]);
    expect(compareAnswers(refused(400, 'invalid_request'), refused(400, 'bad_request'))).toEqual([
      { kind: 'error_code', upstream: 'invalid_request', replay: 'bad_request' },
    ]);
  });

  it("reports a bank's member_id (and a payout's bank_id) that is not 12 digits, though its value is the server's", () => {
    const banks = (member_id: unknown) => answer(200, { items: [{ member_id, name: 'Bank' }] });
    expect(compareAnswers(banks('100000000111'), banks('100000000004'))).toEqual([]);
    expect(compareAnswers(banks('string'), banks('100000000004'))).toEqual([
      { kind: 'field_form', field: 'items[].member_id', upstream: 'string', replay: '100000000004' },
    ]);
    expect(compareAnswers(banks('1000000001110'), banks('100000000004'))).toEqual([
      { kind: 'field_form', field: 'items[].member_id', upstream: '1000000001110', replay: '100000000004' },
    ]);
    const payout = (bank_id: string) => answer(201, { payout: { id: 'p', bank_id } });
    expect(compareAnswers(payout('bank'), payout('100000000111'))).toEqual([
      { kind: 'field_form', field: 'payout.bank_id', upstream: 'bank', replay: '100000000111' },
    ]);
  });

  it('ignores the values the server chooses (ids, times, URLs, prose) but not their types', () => {
    const a = { payment: { id: 'a', created_at: 't1', payment_url: 'u1', status: 'pending', amount: 1 } };
    const b = { payment: { id: 'b', created_at: 't2', payment_url: 'u2', status: 'pending', amount: 1 } };
    expect(compareAnswers(answer(201, a), answer(201, b))).toEqual([]);
    const typed = { payment: { ...b.payment, created_at: 5 } };
    expect(compareAnswers(answer(201, a), answer(201, typed))).toEqual([
      { kind: 'field_type', field: 'payment.created_at', upstream: 'string', replay: 'number' },
    ]);
  });

  it('reports status, error code, values the spec fixes, missing and extra fields, in order', () => {
    const up = answer(409, { error: { code: 'not_pending', message: 'x' }, extra: true });
    const ref = answer(404, { error: { code: 'not_found', message: 'y' } });
    expect(compareAnswers(up, ref)).toEqual([
      { kind: 'status', upstream: 409, replay: 404 },
      { kind: 'error_code', upstream: 'not_pending', replay: 'not_found' },
      { kind: 'extra_field', field: 'extra', upstream: true, replay: undefined },
    ]);
    expect(
      compareAnswers(answer(200, { items: [{ a: 1 }] }), answer(200, { items: [{ a: 1, b: 2 }] })),
    ).toEqual([{ kind: 'missing_field', field: 'items[].b', upstream: undefined, replay: 2 }]);
  });

  it("compares the headers the spec names: Retry-After's presence, Content-Type's media type", () => {
    const up = answer(
      429,
      { error: { code: 'rate_limited', message: '' } },
      { 'content-type': 'text/plain' },
    );
    const ref = answer(429, { error: { code: 'rate_limited', message: '' } }, { 'retry-after': '1' });
    expect(compareAnswers(up, ref)).toEqual([
      {
        kind: 'header',
        field: 'content-type',
        upstream: 'text/plain',
        replay: 'application/json; charset=utf-8',
      },
      { kind: 'header', field: 'retry-after', upstream: undefined, replay: '1' },
    ]);
    const charset = answer(200, {}, { 'content-type': 'application/json' });
    expect(compareAnswers(charset, answer(200, {}))).toEqual([]);
  });
});

describe('IdMap', () => {
  it('maps the ids at the same place of both answers into paths, and forgets the oldest past its bound', () => {
    const ids = new IdMap(2);
    ids.learn({ payment: { id: 'u1', merchant_id: 'm' } }, { payment: { id: 'r1', merchant_id: 'm' } });
    expect(ids.path('/api/v1/public/payments/u1/refund')).toBe('/api/v1/public/payments/r1/refund');
    ids.learn({ payout: { id: 'u2' } }, { payout: { id: 'r2' } });
    ids.learn({ id: 'u3', payment_id: 'u1' }, { id: 'r3', payment_id: 'r1' });
    expect(ids.size).toBe(2);
    // u1 was learnt again (the refund's payment_id), so u2 is the oldest and went.
    expect(ids.path('/payouts/u2')).toBe('/payouts/u2');
    expect(ids.path('/payments/u1')).toBe('/payments/r1');
  });
});
