import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { computeSignatureHeader, verifyWebhook } from '../../src/webhooks/index.js';
import { BODY, NOW_MS, SECRET, T, v2Headers } from './helpers.js';

// Each scenario fails; none of the error's forms may contain the secret or a recognisable part of it.
const WRONG = 'whs_wrong_Zx81Qv04Lk';
const scenarios: Array<[string, () => unknown, string]> = [
  ['wrong secret', () => verifyWebhook(BODY, v2Headers(BODY), WRONG, { now: NOW_MS }), WRONG],
  ['stale', () => verifyWebhook(BODY, v2Headers(BODY, T - 999), SECRET, { now: NOW_MS }), SECRET],
  [
    'rotation list',
    () => verifyWebhook(`${BODY}x`, v2Headers(BODY), [SECRET, WRONG], { now: NOW_MS }),
    SECRET,
  ],
  [
    'thm_ given',
    () => verifyWebhook(BODY, v2Headers(BODY), 'thm_Secret_Q9z8', { now: NOW_MS }),
    'thm_Secret_Q9z8',
  ],
  ['sk_ given', () => verifyWebhook(BODY, v2Headers(BODY), 'sk_test_abcdef_Kq1', {}), 'sk_test_abcdef_Kq1'],
  ['whitespace', () => verifyWebhook(BODY, v2Headers(BODY), ` ${SECRET}`, {}), SECRET],
  ['no prefix', () => verifyWebhook(BODY, v2Headers(BODY), 'Qz1Xy2Wv3Ut4', {}), 'Qz1Xy2Wv3Ut4'],
  ['parsed body', () => verifyWebhook(JSON.parse(BODY), v2Headers(BODY), SECRET, {}), SECRET],
  [
    'sign with thm_',
    () => computeSignatureHeader({ secret: 'thm_Secret_Q9z8', body: BODY, timestamp: T }),
    'thm_Secret_Q9z8',
  ],
];

describe('secrets never leak through errors', () => {
  it.each(scenarios)('%s', (_name, fn, secret) => {
    let error: unknown;
    try {
      fn();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(Error);
    const e = error as Error;
    const core = secret.replace(/^(whs|thm|sk)_/, '').slice(-10);
    for (const form of [
      e.message,
      String(e.stack),
      JSON.stringify(e),
      inspect(e, { depth: 5, showHidden: true }),
      String(e),
    ]) {
      expect(form).not.toContain(secret);
      expect(form).not.toContain(core);
    }
  });

  it('JSON of the error carries name, reason and message', () => {
    try {
      verifyWebhook(BODY, {}, SECRET);
    } catch (e) {
      expect(JSON.parse(JSON.stringify(e))).toEqual({
        name: 'WebhookVerificationError',
        reason: 'missing_signature',
        message: 'No X-PSP-Signature header.',
      });
    }
    expect.assertions(1);
  });
});
