import { describe, expect, it } from 'vitest';
import {
  type WebhookVerificationError,
  type WebhookVerificationReason,
  verifyWebhook,
} from '../../src/webhooks/index.js';
import {
  BODY,
  envelope,
  hmacHex,
  NOW_MS,
  OLD_SECRET,
  SECRET,
  T,
  v1Headers,
  v2Header,
  v2Headers,
} from './helpers.js';

const opts = { now: NOW_MS };

function reasonOf(fn: () => unknown): WebhookVerificationReason {
  try {
    fn();
  } catch (e) {
    expect((e as Error).name).toBe('WebhookVerificationError');
    return (e as WebhookVerificationError).reason;
  }
  throw new Error('expected verification to fail');
}

describe('verifyWebhook v2', () => {
  it('returns the parsed event for a valid v2 signature', () => {
    const event = verifyWebhook(BODY, v2Headers(BODY), SECRET, opts);
    expect(event).toEqual(envelope());
    expect(event.event).toBe('payment.succeeded');
  });

  it.each([
    ['string', (b: string) => b],
    ['Buffer', (b: string) => Buffer.from(b)],
    ['Uint8Array', (b: string) => new TextEncoder().encode(b)],
    ['ArrayBuffer', (b: string) => new TextEncoder().encode(b).buffer],
    ['DataView', (b: string) => new DataView(new TextEncoder().encode(b).buffer)],
    [
      'Uint8Array view into a larger buffer',
      (b: string) => Buffer.from(`xx${b}yy`).subarray(2, 2 + Buffer.byteLength(b)),
    ],
  ])('accepts the body as %s', (_name, make) => {
    expect(verifyWebhook(make(BODY), v2Headers(BODY), SECRET, opts).id).toBe('evt_01JD3Z8K9QW');
  });

  it('takes now as a function, asked at each verification (a test clock)', () => {
    let clock = NOW_MS;
    const now = () => clock;
    expect(verifyWebhook(BODY, v2Headers(BODY), SECRET, { now }).id).toBe('evt_01JD3Z8K9QW');
    clock += 301_000; // past the 300 s tolerance
    expect(reasonOf(() => verifyWebhook(BODY, v2Headers(BODY), SECRET, { now }))).toBe(
      'timestamp_outside_tolerance',
    );
    expect(verifyWebhook(BODY, v2Headers(BODY), SECRET, { now: () => new Date(NOW_MS) }).id).toBe(
      'evt_01JD3Z8K9QW',
    );
  });

  it('accepts fetch Headers, Node IncomingHttpHeaders with arrays, and records in any case', () => {
    const h = v2Headers(BODY);
    expect(verifyWebhook(BODY, new Headers(h), SECRET, opts).id).toBe('evt_01JD3Z8K9QW');
    const node = {
      'x-psp-signature': [h['x-psp-signature']!],
      'x-psp-timestamp': h['x-psp-timestamp'],
      host: 'x',
    };
    expect(verifyWebhook(BODY, node, SECRET, opts).id).toBe('evt_01JD3Z8K9QW');
    const mixed = { 'X-PSP-Signature': h['x-psp-signature'], 'X-Psp-Timestamp': h['x-psp-timestamp'] };
    expect(verifyWebhook(BODY, mixed, SECRET, opts).id).toBe('evt_01JD3Z8K9QW');
  });

  it('hashes multi-byte UTF-8 bodies as bytes, identically for string and Buffer', () => {
    const body = JSON.stringify(envelope('payment.succeeded', { id: 'p', note: 'Привет 👋 \u00e9' }));
    expect(verifyWebhook(body, v2Headers(body), SECRET, opts).data).toMatchObject({ note: 'Привет 👋 é' });
    expect(verifyWebhook(Buffer.from(body), v2Headers(body), SECRET, opts).data).toMatchObject({ id: 'p' });
  });

  it('accepts uppercase hex and spaces after commas', () => {
    const sig = hmacHex(SECRET, `${T}.${BODY}`).toUpperCase();
    expect(verifyWebhook(BODY, { 'x-psp-signature': `t=${T}, v2=${sig}` }, SECRET, opts).id).toBeTruthy();
  });

  it('accepts a missing X-PSP-Timestamp (t= is what is signed)', () => {
    expect(verifyWebhook(BODY, { 'x-psp-signature': v2Header(BODY) }, SECRET, opts).id).toBeTruthy();
  });

  it('refuses a tampered body', () => {
    const tampered = BODY.replace('150000', '150001');
    expect(reasonOf(() => verifyWebhook(tampered, v2Headers(BODY), SECRET, opts))).toBe(
      'no_matching_signature',
    );
  });

  it('refuses a wrong secret', () => {
    expect(reasonOf(() => verifyWebhook(BODY, v2Headers(BODY), 'whs_other', opts))).toBe(
      'no_matching_signature',
    );
  });

  it('refuses a re-timestamped replay (t changed, signature kept)', () => {
    const sig = hmacHex(SECRET, `${T - 3600}.${BODY}`);
    const h = { 'x-psp-signature': `t=${T},v2=${sig}`, 'x-psp-timestamp': String(T) };
    expect(reasonOf(() => verifyWebhook(BODY, h, SECRET, opts))).toBe('no_matching_signature');
  });

  it('enforces the tolerance in both directions, boundaries included', () => {
    const at = (t: number, tolerance?: number) => () =>
      verifyWebhook(BODY, v2Headers(BODY, t), SECRET, { now: NOW_MS, tolerance });
    expect(at(T - 300)().id).toBeTruthy();
    expect(at(T + 300)().id).toBeTruthy();
    expect(reasonOf(at(T - 301))).toBe('timestamp_outside_tolerance');
    expect(reasonOf(at(T + 301))).toBe('timestamp_outside_tolerance');
    expect(reasonOf(at(T - 3600))).toBe('timestamp_outside_tolerance');
    expect(at(T - 3600, 7200)().id).toBeTruthy();
    expect(reasonOf(at(T - 11, 10))).toBe('timestamp_outside_tolerance');
    expect(at(T, 0)().id).toBeTruthy();
  });

  it('explains stale versus future timestamps', () => {
    const msg = (t: number) => {
      try {
        verifyWebhook(BODY, v2Headers(BODY, t), SECRET, opts);
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(msg(T - 900)).toMatch(/900 s ago/);
    expect(msg(T + 900)).toMatch(/900 s ahead/);
  });

  it('uses Date.now() by default and accepts a Date for now', () => {
    const t = Math.floor(Date.now() / 1000);
    expect(verifyWebhook(BODY, v2Headers(BODY, t), SECRET).id).toBeTruthy();
    expect(verifyWebhook(BODY, v2Headers(BODY), SECRET, { now: new Date(NOW_MS) }).id).toBeTruthy();
  });

  it('checks the signature before freshness: a stale forgery is reported as a signature failure', () => {
    const forged = { 'x-psp-signature': v2Header(BODY, T - 3600, OLD_SECRET) };
    expect(reasonOf(() => verifyWebhook(BODY, forged, SECRET, opts))).toBe('no_matching_signature');
    const mismatch = { ...v2Headers(BODY, T, OLD_SECRET), 'x-psp-timestamp': String(T + 5) };
    expect(reasonOf(() => verifyWebhook(BODY, mismatch, SECRET, opts))).toBe('no_matching_signature');
  });

  it('refuses an X-PSP-Timestamp that differs from t=', () => {
    const h = { ...v2Headers(BODY), 'x-psp-timestamp': String(T + 1) };
    expect(reasonOf(() => verifyWebhook(BODY, h, SECRET, opts))).toBe('timestamp_mismatch');
  });

  it('never downgrades a v2 header without v2= to its v1= entry', () => {
    const legacy = hmacHex(SECRET, BODY);
    const h = { 'x-psp-signature': `t=${T},v1=${legacy}`, 'x-psp-timestamp': String(T) };
    expect(reasonOf(() => verifyWebhook(BODY, h, SECRET, opts))).toBe('missing_v2_signature');
    // Even an attacker-added sha256= inside a v2 header does not count.
    const h2 = { 'x-psp-signature': `t=${T},sha256=${legacy}` };
    expect(reasonOf(() => verifyWebhook(BODY, h2, SECRET, opts))).toBe('missing_v2_signature');
  });

  it('ignores v1= and unknown future entries in a v2 header', () => {
    const h = {
      'x-psp-signature': `t=${T},v1=${'0'.repeat(64)},v3=abc,v2=${hmacHex(SECRET, `${T}.${BODY}`)}`,
    };
    expect(verifyWebhook(BODY, h, SECRET, opts).id).toBeTruthy();
  });

  it('rotation: any of several secrets verifies, and any of several v2= entries', () => {
    expect(verifyWebhook(BODY, v2Headers(BODY, T, OLD_SECRET), [SECRET, OLD_SECRET], opts).id).toBeTruthy();
    expect(verifyWebhook(BODY, v2Headers(BODY, T, SECRET), [OLD_SECRET, SECRET], opts).id).toBeTruthy();
    const both = `t=${T},v2=${hmacHex(OLD_SECRET, `${T}.${BODY}`)},v2=${hmacHex(SECRET, `${T}.${BODY}`)}`;
    expect(verifyWebhook(BODY, { 'x-psp-signature': both }, SECRET, opts).id).toBeTruthy();
    expect(verifyWebhook(BODY, { 'x-psp-signature': both }, OLD_SECRET, opts).id).toBeTruthy();
    expect(reasonOf(() => verifyWebhook(BODY, v2Headers(BODY, T, OLD_SECRET), [SECRET], opts))).toBe(
      'no_matching_signature',
    );
  });
});

describe('verifyWebhook v1 (legacy)', () => {
  it('accepts sha256= by default', () => {
    expect(verifyWebhook(BODY, v1Headers(BODY), SECRET, opts)).toEqual(envelope());
  });

  it('has no replay window: an old v1 webhook still verifies', () => {
    expect(verifyWebhook(BODY, v1Headers(BODY), SECRET, { now: NOW_MS + 86_400_000 * 365 }).id).toBeTruthy();
  });

  it('refuses v1 with requireV2, and accepts v2 with it', () => {
    expect(reasonOf(() => verifyWebhook(BODY, v1Headers(BODY), SECRET, { ...opts, requireV2: true }))).toBe(
      'v1_not_allowed',
    );
    expect(verifyWebhook(BODY, v2Headers(BODY), SECRET, { ...opts, requireV2: true }).id).toBeTruthy();
  });

  it('refuses a tampered v1 body and a wrong v1 secret', () => {
    expect(reasonOf(() => verifyWebhook(`${BODY} `, v1Headers(BODY), SECRET, opts))).toBe(
      'no_matching_signature',
    );
    expect(reasonOf(() => verifyWebhook(BODY, v1Headers(BODY, OLD_SECRET), SECRET, opts))).toBe(
      'no_matching_signature',
    );
  });

  it('accepts several sha256= entries (rotation on the sender)', () => {
    const h = { 'x-psp-signature': `sha256=${hmacHex(OLD_SECRET, BODY)},sha256=${hmacHex(SECRET, BODY)}` };
    expect(verifyWebhook(BODY, h, SECRET, opts).id).toBeTruthy();
  });
});

describe('verifyWebhook header problems', () => {
  it.each([
    [{}, 'missing_signature'],
    [{ 'x-psp-signature': '' }, 'missing_signature'],
    [{ 'x-psp-signature': '   ' }, 'missing_signature'],
    [{ 'x-psp-signature': 'garbage' }, 'malformed_signature'],
    [{ 'x-psp-signature': `v2=${'a'.repeat(64)}` }, 'malformed_signature'],
    [{ 'x-psp-signature': `t=abc,v2=${'a'.repeat(64)}` }, 'malformed_signature'],
    [{ 'x-psp-signature': `t=-5,v2=${'a'.repeat(64)}` }, 'malformed_signature'],
    [{ 'x-psp-signature': `t=1.5,v2=${'a'.repeat(64)}` }, 'malformed_signature'],
    [{ 'x-psp-signature': `t=${T},t=${T},v2=${'a'.repeat(64)}` }, 'malformed_signature'],
    [{ 'x-psp-signature': `t=${T},v2=${'a'.repeat(63)}` }, 'malformed_signature'],
    [{ 'x-psp-signature': `t=${T},v2=${'g'.repeat(64)}` }, 'malformed_signature'],
    [{ 'x-psp-signature': `t=${T},v2=` }, 'malformed_signature'],
    [{ 'x-psp-signature': `t=${T},,v2=${'a'.repeat(64)}` }, 'malformed_signature'],
    [{ 'x-psp-signature': `t=${T}` }, 'missing_v2_signature'],
    [{ 'x-psp-signature': 'sha256=zz' }, 'malformed_signature'],
    [{ 'x-psp-signature': `sha256=${'a'.repeat(64)},t=${T}` }, 'malformed_signature'],
    [{ 'x-psp-signature': `t=${T},${`v2=${'a'.repeat(64)},`.repeat(40)}` }, 'malformed_signature'],
    [{ 'x-psp-signature': `t=${T},x=${'a'.repeat(5000)}` }, 'malformed_signature'],
  ])('%o -> %s', (headers, reason) => {
    expect(reasonOf(() => verifyWebhook(BODY, headers as Record<string, string>, SECRET, opts))).toBe(reason);
  });

  it('treats absent header containers as a missing signature', () => {
    expect(reasonOf(() => verifyWebhook(BODY, undefined as never, SECRET, opts))).toBe('missing_signature');
    expect(reasonOf(() => verifyWebhook(BODY, null as never, SECRET, opts))).toBe('missing_signature');
  });
});

describe('verifyWebhook input and configuration problems', () => {
  it('explains why a parsed object cannot be verified', () => {
    let err: Error | undefined;
    try {
      verifyWebhook(JSON.parse(BODY), v2Headers(BODY), SECRET, opts);
    } catch (e) {
      err = e as Error;
    }
    expect((err as WebhookVerificationError).reason).toBe('body_not_raw');
    expect(err?.message).toMatch(/raw body/);
    expect(err?.message).toMatch(/parsed object/);
    expect(err?.message).toMatch(/express\.raw\(\)/);
  });

  it.each([[null], [undefined], [42], [[1, 2]], [{ toString: () => BODY }]])(
    'refuses %o as a body',
    (body) => {
      expect(reasonOf(() => verifyWebhook(body as never, v2Headers(BODY), SECRET, opts))).toBe(
        'body_not_raw',
      );
    },
  );

  it.each([
    [undefined, 'missing_secret'],
    ['', 'missing_secret'],
    [[], 'missing_secret'],
    [[SECRET, ''], 'missing_secret'],
    [42, 'invalid_secret'],
    ['whs_', 'invalid_secret'],
    ['test_secret', 'invalid_secret'],
    ['9fK2pQ7vLm3XzR8tB1nC4dE6', 'invalid_secret'],
    [`${SECRET}\n`, 'invalid_secret'],
    ['thm_signing_secret', 'invalid_secret'],
    ['sk_test_abcdef_secret', 'invalid_secret'],
  ])('secret %o -> %s', (secret, reason) => {
    expect(reasonOf(() => verifyWebhook(BODY, v2Headers(BODY), secret as never, opts))).toBe(reason);
  });

  // Issue 44 item 6: a missing or non-string secret says where the secret comes from, not just that it is wrong.
  it.each([[undefined], [''], [42]])('a secret of %o says where the secret comes from', (secret) => {
    expect(() => verifyWebhook(BODY, v2Headers(BODY), secret as never, opts)).toThrow(
      /shown when the endpoint was made or rotated \(keep it in an environment variable such as PSP_WEBHOOK_SECRET\)/,
    );
  });

  it('tells a thm_ secret apart from a whs_ one', () => {
    expect(() => verifyWebhook(BODY, v2Headers(BODY), 'thm_abc', opts)).toThrow(
      /thm_ key, not a whs_ secret/,
    );
  });

  it.each([
    [{ tolerance: -1 }],
    [{ tolerance: Number.NaN }],
    [{ tolerance: Number.POSITIVE_INFINITY }],
    [{ tolerance: '300' }],
    [{ now: T }],
    [{ now: Number.NaN }],
    [{ now: new Date('nope') }],
    [{ now: '2025-01-01' }],
    [{ now: () => T }],
    [{ now: () => undefined }],
  ])('options %o -> invalid_options', (o) => {
    expect(reasonOf(() => verifyWebhook(BODY, v2Headers(BODY), SECRET, o as never))).toBe('invalid_options');
  });

  it('an authentic body that is not JSON or not an envelope is refused after the signature check', () => {
    const check = (body: string | Uint8Array) =>
      reasonOf(() => verifyWebhook(body, v2Headers(body), SECRET, opts));
    expect(check('not json')).toBe('invalid_json');
    expect(check(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]))).toBe('invalid_json');
    expect(check('[]')).toBe('invalid_payload');
    expect(check('null')).toBe('invalid_payload');
    expect(check('{"id":1,"event":"payment.succeeded","data":{}}')).toBe('invalid_payload');
    expect(check('{"id":"evt_1","event":"payment.succeeded","data":null}')).toBe('invalid_payload');
    expect(check('{"id":"evt_1","event":"payment.succeeded","data":[]}')).toBe('invalid_payload');
    expect(check('{"id":"evt_1","data":{}}')).toBe('invalid_payload');
  });

  it('checks the signature before parsing: an unsigned garbage body is a signature failure', () => {
    expect(reasonOf(() => verifyWebhook('not json', v2Headers(BODY), SECRET, opts))).toBe(
      'no_matching_signature',
    );
  });

  it('passes an unknown event name through untouched', () => {
    const body = JSON.stringify(envelope('payment.disputed', { id: 'd1', reason: 'fraud' }));
    const event = verifyWebhook(body, v2Headers(body), SECRET, opts);
    expect(event.event).toBe('payment.disputed');
    expect(event.data).toEqual({ id: 'd1', reason: 'fraud' });
  });
});
