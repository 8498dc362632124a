import { describe, expect, it } from 'vitest';
import { computeSignatureHeader, signWebhook, verifyWebhook } from '../../src/webhooks/index.js';
import { BODY, envelope, hmacHex, NOW_MS, SECRET, T, v2Header } from './helpers.js';

describe('computeSignatureHeader', () => {
  it('builds v2 as t=,v1=<HMAC("t.body")>,v2=<HMAC("t.body")>, byte-identical to node:crypto', () => {
    expect(computeSignatureHeader({ secret: SECRET, body: BODY, timestamp: T })).toBe(v2Header(BODY));
    expect(computeSignatureHeader({ secret: SECRET, body: BODY, timestamp: T })).toBe(
      `t=${T},v1=${hmacHex(SECRET, `${T}.${BODY}`)},v2=${hmacHex(SECRET, `${T}.${BODY}`)}`,
    );
  });

  it('signs bytes like the equivalent string', () => {
    expect(computeSignatureHeader({ secret: SECRET, body: Buffer.from(BODY), timestamp: T })).toBe(
      v2Header(BODY),
    );
  });

  it('builds v1 as sha256=<HMAC(body)> and needs no timestamp', () => {
    expect(computeSignatureHeader({ secret: SECRET, body: BODY, version: 'v1' })).toBe(
      `sha256=${hmacHex(SECRET, BODY)}`,
    );
  });

  it.each([
    [{ timestamp: undefined }, /integer Unix seconds/],
    [{ timestamp: NOW_MS }, /not ms/],
    [{ timestamp: 1.5 }, /integer/],
    [{ timestamp: -1 }, /integer/],
    [{ timestamp: T, version: 'v3' }, /v1 or v2/],
    [{ timestamp: T, secret: 'thm_x' }, /thm_ key/],
    [{ timestamp: T, secret: 'nope' }, /whs_/],
  ])('refuses %o with a TypeError', (patch, msg) => {
    const input = { secret: SECRET, body: BODY, ...patch } as never;
    expect(() => computeSignatureHeader(input)).toThrow(TypeError);
    expect(() => computeSignatureHeader(input)).toThrow(msg);
  });
});

describe('signWebhook', () => {
  it('returns the body and the headers the service sends, and the result verifies', () => {
    const { body, headers } = signWebhook(envelope(), SECRET, { timestamp: T });
    expect(body).toBe(BODY);
    expect(headers).toEqual({
      'content-type': 'application/json',
      'user-agent': 'psp-webhook/1.0',
      'x-psp-event-id': 'evt_01JD3Z8K9QW',
      'x-psp-signature': v2Header(BODY),
      'x-psp-timestamp': String(T),
    });
    expect(verifyWebhook(body, headers, SECRET, { now: NOW_MS })).toEqual(envelope());
  });

  it('defaults the timestamp to now and accepts a Date', () => {
    const now = signWebhook(envelope(), SECRET);
    expect(Math.abs(Number(now.headers['x-psp-timestamp']) - Date.now() / 1000)).toBeLessThan(5);
    expect(verifyWebhook(now.body, now.headers, SECRET).id).toBe('evt_01JD3Z8K9QW');
    const dated = signWebhook(envelope(), SECRET, { timestamp: new Date(NOW_MS + 999) });
    expect(dated.headers['x-psp-timestamp']).toBe(String(T));
  });

  it('signs a string payload as is (no X-PSP-Event-Id), and v1 with X-PSP-Timestamp as the service sends it', () => {
    const { body, headers } = signWebhook(BODY, SECRET, { version: 'v1', timestamp: T });
    expect(body).toBe(BODY);
    expect(headers).toEqual({
      'content-type': 'application/json',
      'user-agent': 'psp-webhook/1.0',
      'x-psp-signature': `sha256=${hmacHex(SECRET, BODY)}`,
      'x-psp-timestamp': String(T),
    });
    expect(verifyWebhook(body, headers, SECRET).id).toBe('evt_01JD3Z8K9QW');
  });

  it('refuses a v1 timestamp that is not Unix seconds, as it does for v2', () => {
    expect(() => signWebhook(BODY, SECRET, { version: 'v1', timestamp: NOW_MS })).toThrow(/not ms/);
  });

  it('produces a stale signature for a past timestamp, for replay tests', () => {
    const { body, headers } = signWebhook(envelope(), SECRET, { timestamp: T - 600 });
    expect(() => verifyWebhook(body, headers, SECRET, { now: NOW_MS })).toThrow(/600 s ago/);
  });

  it('refuses a payload that does not serialise', () => {
    expect(() => signWebhook(undefined as never, SECRET)).toThrow(TypeError);
  });
});
