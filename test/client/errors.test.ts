import { describe, expect, it } from 'vitest';
import {
  AmlBlockedError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ForbiddenPurposeError,
  IdempotentConflictError,
  InternalServerError,
  IpNotAllowedError,
  LiveNotEnabledError,
  NotFoundError,
  NotPendingError,
  PermissionDeniedError,
  PspApiError,
  PspError,
  RateLimitError,
  SignatureError,
  UnprocessableEntityError,
} from '../../src/index.js';
import { createApiError, parseRetryAfter } from '../../src/client/errors.js';
import { apiError, client, PAYMENT_ID, stubFetch } from './helpers.js';

const make = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  createApiError({ status, body, headers: new Headers(headers), attempts: 1, idempotencyKey: 'k' });
const err = (status: number, code: string) => make(status, { error: { code, message: `m ${code}` } });

describe('createApiError: code first, status second', () => {
  it.each([
    [400, 'bad_request', BadRequestError, BadRequestError],
    [400, 'signature_required', SignatureError, BadRequestError],
    [401, 'signature_required', SignatureError, PspApiError],
    [400, 'invalid_signature', SignatureError, BadRequestError],
    [401, 'unauthorized', AuthenticationError, AuthenticationError],
    [403, 'live_not_enabled', LiveNotEnabledError, PermissionDeniedError],
    [403, 'ip_not_allowed', IpNotAllowedError, PermissionDeniedError],
    [403, 'aml_blocked', AmlBlockedError, PermissionDeniedError],
    [403, 'forbidden_purpose', ForbiddenPurposeError, PermissionDeniedError],
    [403, 'something_new', PermissionDeniedError, PermissionDeniedError],
    [404, 'not_found', NotFoundError, NotFoundError],
    [409, 'idempotent_conflict', IdempotentConflictError, ConflictError],
    [409, 'not_pending', NotPendingError, ConflictError],
    [409, 'not_refundable', ConflictError, ConflictError],
    [422, 'amount_exceeds_balance', UnprocessableEntityError, UnprocessableEntityError],
    [429, 'rate_limited', RateLimitError, RateLimitError],
    [500, 'internal_error', InternalServerError, InternalServerError],
    [503, 'unavailable', InternalServerError, InternalServerError],
    [418, 'teapot', PspApiError, PspApiError],
  ])('%i %s -> its class', (status, code, Cls, Parent) => {
    const e = err(status, code);
    expect(e).toBeInstanceOf(Cls);
    expect(e).toBeInstanceOf(Parent);
    expect(e).toBeInstanceOf(PspApiError);
    expect(e).toBeInstanceOf(PspError);
    expect(e).toBeInstanceOf(Error);
    expect(e.constructor).toBe(Cls);
    expect(e.name).toBe(Cls.name);
    expect(e.status).toBe(status);
    expect(e.code).toBe(code);
    expect(e.message).toBe(`m ${code}`);
    expect(e.idempotencyKey).toBe('k');
  });

  it('a 401 signature error is a SignatureError but not an AuthenticationError; status tells', () => {
    const e = err(401, 'signature_required');
    expect(e).not.toBeInstanceOf(AuthenticationError);
    expect(e.status).toBe(401);
  });

  it('a body that is not the spec JSON still gives a typed error with a derived code', () => {
    const html = make(502, '<html>Bad Gateway</html>');
    expect(html).toBeInstanceOf(InternalServerError);
    expect(html.code).toBe('internal_error');
    expect(html.message).toContain('Bad Gateway');
    const empty = make(404, undefined);
    expect(empty).toBeInstanceOf(NotFoundError);
    expect(empty.code).toBe('not_found');
    expect(empty.message).toBe('HTTP 404');
    const wrongShape = make(409, { message: 'x' });
    expect(wrongShape).toBeInstanceOf(ConflictError);
    expect(wrongShape.code).toBe('conflict');
    expect(make(401, null)).toBeInstanceOf(AuthenticationError);
  });

  it('RateLimitError reads Retry-After (seconds or date) as seconds', () => {
    expect((make(429, {}, { 'retry-after': '7' }) as RateLimitError).retryAfter).toBe(7);
    const date = new Date(Date.now() + 60_000).toUTCString();
    const fromDate = (make(429, {}, { 'retry-after': date }) as RateLimitError).retryAfter ?? 0;
    expect(fromDate).toBeGreaterThan(58);
    expect(fromDate).toBeLessThanOrEqual(60);
    expect((make(429, {}) as RateLimitError).retryAfter).toBeUndefined();
    expect((make(429, {}, { 'retry-after': 'soon' }) as RateLimitError).retryAfter).toBeUndefined();
  });

  it('parseRetryAfter handles seconds, dates and junk', () => {
    const now = Date.parse('2026-05-06T10:00:00Z');
    expect(parseRetryAfter('2', now)).toBe(2000);
    expect(parseRetryAfter(' 2 ', now)).toBe(2000);
    // delta-seconds is an integer (RFC 9110 10.2.3): a fraction is junk, treated as absent.
    expect(parseRetryAfter('1.5', now)).toBeUndefined();
    expect(parseRetryAfter('Wed, 06 May 2026 10:00:03 GMT', now)).toBe(3000);
    expect(parseRetryAfter('Wed, 06 May 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('-1', now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  it('requestId comes from X-Request-Id', () => {
    expect(make(500, {}, { 'x-request-id': 'r-9' }).requestId).toBe('r-9');
    expect(make(500, {}).requestId).toBeUndefined();
  });

  it('toJSON has the safe fields', () => {
    const e = make(409, { error: { code: 'not_pending', message: 'no' } }, { 'x-request-id': 'r' });
    expect(JSON.parse(JSON.stringify(e))).toEqual({
      name: 'NotPendingError',
      message: 'no',
      status: 409,
      code: 'not_pending',
      requestId: 'r',
      idempotencyKey: 'k',
      attempts: 1,
      headers: { 'x-request-id': 'r' },
    });
  });
});

describe('errors through the client', () => {
  it('each code of spec section 7 arrives as its class with status, code, message and headers', async () => {
    const rows: Array<[number, string, new (...a: never[]) => PspApiError]> = [
      [400, 'bad_request', BadRequestError],
      [400, 'invalid_signature', SignatureError],
      [401, 'unauthorized', AuthenticationError],
      [403, 'live_not_enabled', LiveNotEnabledError],
      [404, 'not_found', NotFoundError],
      [409, 'idempotent_conflict', IdempotentConflictError],
      [422, 'unprocessable', UnprocessableEntityError],
    ];
    for (const [status, code, Cls] of rows) {
      const { fetch, seen } = stubFetch(() => apiError(status, code, 'why', { 'x-request-id': 'rq' }));
      const e = (await client(fetch)
        .payments.create({ amount: 10 }, { idempotencyKey: 'key-1' })
        .then(
          () => undefined,
          (x: unknown) => x,
        )) as PspApiError;
      expect(e).toBeInstanceOf(Cls);
      expect([e.status, e.code, e.message, e.requestId, e.idempotencyKey, e.attempts]).toEqual([
        status,
        code,
        'why',
        'rq',
        'key-1',
        1,
      ]);
      expect(e.headers.get('content-type')).toBe('application/json');
      expect(seen).toHaveLength(1);
    }
  });

  it('rejects (never throws synchronously), so .catch works on a bad call', async () => {
    const { fetch } = stubFetch(() => apiError(404, 'not_found'));
    const p = client(fetch).payments.get('not-a-uuid');
    await expect(p).rejects.toThrow(/id: must be a UUID/);
    await expect(client(fetch).payments.get(PAYMENT_ID)).rejects.toBeInstanceOf(NotFoundError);
  });
});
