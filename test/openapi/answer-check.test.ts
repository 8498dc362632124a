import { describe, expect, it } from 'vitest';
import { checkAnswer } from './answer-check.js';

// The checker applied to the reference's HTTP tests must be able to fail: an unlisted status, a body off its
// schema, a wrong media type.
const json = 'application/json; charset=utf-8';
const get = { method: 'GET', url: 'http://ref.test/api/v1/public/banks/sbp' };

describe('the answer check', () => {
  it('passes an answer the document describes', () => {
    const body = JSON.stringify({ items: [{ member_id: '100000000111', name: 'Банк', name_en: 'Bank' }] });
    expect(() => checkAnswer(get, { status: 200, contentType: json, body })).not.toThrow();
    const error = JSON.stringify({ error: { code: 'unauthorized', message: 'no key' } });
    expect(() => checkAnswer(get, { status: 401, contentType: json, body: error })).not.toThrow();
  });

  it('refuses a status the operation does not list, a body off its schema, another media type', () => {
    const error = JSON.stringify({ error: { code: 'not_found', message: 'x' } });
    expect(() => checkAnswer(get, { status: 404, contentType: json, body: error })).toThrow(/lists 200, 400/);
    const bad = JSON.stringify({ items: [{ member_id: '12', name: 'x', name_en: 'x' }] });
    expect(() => checkAnswer(get, { status: 200, contentType: json, body: bad })).toThrow(
      /member_id|pattern/,
    );
    const extra = JSON.stringify({ error: { code: 'x', message: 'y' }, more: 1 });
    expect(() => checkAnswer(get, { status: 401, contentType: json, body: extra })).toThrow(/additional/);
    expect(() => checkAnswer(get, { status: 401, contentType: 'text/html', body: '<p>' })).toThrow(
      /content-type/,
    );
  });

  it('leaves requests that are no operation of the document alone', () => {
    for (const url of ['http://ref.test/_simulator/clock', 'http://ref.test/api/v1/public/nope']) {
      expect(() =>
        checkAnswer({ method: 'GET', url }, { status: 404, contentType: json, body: '{}' }),
      ).not.toThrow();
    }
    const del = { method: 'DELETE', url: 'http://ref.test/api/v1/public/payments/x' };
    expect(() => checkAnswer(del, { status: 405, contentType: json, body: '{}' })).not.toThrow();
  });
});
