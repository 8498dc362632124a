import { afterEach, describe, expect, it, vi } from 'vitest';
import { PspClient, PspValidationError } from '../../src/index.js';
import { API_KEY, BASE_URL, json, LIVE_KEY, PAYMENT_ID, payment, stubFetch } from './helpers.js';

function fails(options: ConstructorParameters<typeof PspClient>[0]): PspValidationError {
  try {
    new PspClient(options);
  } catch (e) {
    expect(e).toBeInstanceOf(PspValidationError);
    return e as PspValidationError;
  }
  throw new Error('constructed');
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
});

describe('new PspClient', () => {
  it('mode follows the key', () => {
    expect(new PspClient({ apiKey: API_KEY, baseUrl: BASE_URL }).mode).toBe('test');
    expect(new PspClient({ apiKey: LIVE_KEY, baseUrl: BASE_URL }).mode).toBe('live');
  });

  it.each([
    'sk_test_ab12c_secret',
    'sk_test_ab12cde_secret',
    'sk_test_ab12cd_',
    'sk_test_ab-2cd_secret',
    'sk_prod_ab12cd_secret',
    'pk_test_ab12cd_secret',
    'sk_test_ab12cd_sec ret',
    '',
  ])('refuses the key %j', (apiKey) => {
    const e = fails({ apiKey, baseUrl: BASE_URL });
    expect(e.issues.map((i) => i.field)).toEqual(['apiKey']);
  });

  it('names every bad option at once', () => {
    const e = fails({
      apiKey: 'nope',
      baseUrl: 'ftp://x',
      signingSecret: 'secret',
      maxRetries: -1,
      timeout: 0,
      maxRetryDelay: 1.5,
      banksCacheTtl: -1,
      fetch: 'x' as unknown as typeof fetch,
    });
    expect(e.issues.map((i) => i.field)).toEqual([
      'apiKey',
      'baseUrl',
      'signingSecret',
      'maxRetries',
      'timeout',
      'maxRetryDelay',
      'banksCacheTtl',
      'fetch',
    ]);
  });

  it('baseUrl: needs http(s), keeps a path prefix, drops the trailing slash', async () => {
    expect(fails({ apiKey: API_KEY }).issues[0]?.message).toContain('PSP_BASE_URL');
    expect(fails({ apiKey: API_KEY, baseUrl: 'http://h/x?y=1' }).issues[0]?.field).toBe('baseUrl');
    expect(fails({ apiKey: API_KEY, baseUrl: 'psp.example.com' }).issues[0]?.field).toBe('baseUrl');
    const { fetch, seen } = stubFetch(() => json(payment()));
    const c = new PspClient({ apiKey: API_KEY, baseUrl: 'https://gw.example.com/psp/', fetch });
    expect(c.baseUrl).toBe('https://gw.example.com/psp');
    await c.payments.get(PAYMENT_ID);
    expect(seen[0]?.url).toBe(`https://gw.example.com/psp/api/v1/public/payments/${PAYMENT_ID}`);
  });

  it('reads PSP_API_KEY, PSP_BASE_URL and PSP_SIGNING_SECRET when options omit them', async () => {
    vi.stubEnv('PSP_API_KEY', LIVE_KEY);
    vi.stubEnv('PSP_BASE_URL', 'http://env.example');
    vi.stubEnv('PSP_SIGNING_SECRET', 'thm_fromenv');
    const { fetch, seen } = stubFetch(() => json(payment()));
    const c = new PspClient({ fetch });
    expect(c.mode).toBe('live');
    await c.payments.get(PAYMENT_ID);
    expect(seen[0]?.url.startsWith('http://env.example/')).toBe(true);
    expect(seen[0]?.headers['x-psp-signature']).toMatch(/^sha256=/);
  });

  it('signingSecret: null never signs, though PSP_SIGNING_SECRET is set (a client of another terminal)', async () => {
    vi.stubEnv('PSP_SIGNING_SECRET', 'thm_fromenv');
    const { fetch, seen } = stubFetch(() => json(payment()));
    const c = new PspClient({ apiKey: API_KEY, baseUrl: BASE_URL, fetch, signingSecret: null });
    await c.payments.get(PAYMENT_ID);
    expect(seen[0]?.headers).not.toHaveProperty('x-psp-signature');
  });

  it('refuses to run in a browser unless dangerouslyAllowBrowser', () => {
    vi.stubGlobal('window', {});
    vi.stubGlobal('document', {});
    const e = fails({ apiKey: API_KEY, baseUrl: BASE_URL });
    expect(e.issues[0]?.field).toBe('dangerouslyAllowBrowser');
    expect(e.message).toContain('browser');
    expect(new PspClient({ apiKey: API_KEY, baseUrl: BASE_URL, dangerouslyAllowBrowser: true }).mode).toBe(
      'test',
    );
  });

  it('uses globalThis.fetch by default, looked up per request (a fetch patched later, as msw does, is seen)', async () => {
    const c = new PspClient({ apiKey: API_KEY, baseUrl: BASE_URL });
    const { fetch, seen } = stubFetch(() => json(payment()));
    vi.stubGlobal('fetch', fetch);
    await c.payments.get(PAYMENT_ID);
    expect(seen).toHaveLength(1);
  });
});
