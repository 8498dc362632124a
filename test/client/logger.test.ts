import { afterEach, describe, expect, it, vi } from 'vitest';
import { VERSION } from '../../src/internal/version.js';
import { type Logger, PspClient, PspError, PspValidationError } from '../../src/index.js';
import { API_KEY, apiError, BASE_URL, client, json, PAYMENT_ID, payment, stubFetch } from './helpers.js';

afterEach(() => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  vi.useRealTimers();
});

function recorder() {
  const lines: { level: string; msg: string; meta?: Record<string, unknown> }[] = [];
  const at = (level: string) => (msg: string, meta?: Record<string, unknown>) =>
    lines.push({ level, msg, meta });
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { lines, logger };
}

describe('log levels through the client', () => {
  it('at debug: one line per attempt, one info line per retry, one info line for the failed call', async () => {
    vi.useFakeTimers();
    const { lines, logger } = recorder();
    const { fetch } = stubFetch(() => apiError(503, 'unavailable'));
    const p = client(fetch, { logger, logLevel: 'debug', maxRetries: 2 })
      .payments.get(PAYMENT_ID)
      .catch(() => {});
    await vi.runAllTimersAsync();
    await p;
    const summary = lines.map((l) => `${l.level} ${l.msg}`);
    expect(summary).toEqual([
      'debug psp-sdk: request',
      'info psp-sdk: retrying',
      'debug psp-sdk: request',
      'info psp-sdk: retrying',
      'debug psp-sdk: request',
      'info psp-sdk: failed',
    ]);
    expect(JSON.stringify(lines)).not.toContain(API_KEY);
  });

  it('at the default (warn): a failed call the caller receives prints nothing, to a logger or to console', async () => {
    // Issue 26: every failed call, an expected 404 included, printed a multi-line `psp-sdk: failed` dump.
    const { lines, logger } = recorder();
    const spies = (['debug', 'info', 'warn', 'error', 'log'] as const).map((m) =>
      vi.spyOn(console, m).mockImplementation(() => {}),
    );
    const answers = [
      () => apiError(404, 'not_found'),
      () => apiError(409, 'not_pending'),
      () => apiError(500, 'internal_error'),
      () => json({ not: 'a payment' }),
      async (): Promise<Response> => {
        throw new TypeError('fetch failed');
      },
    ];
    for (const answer of answers) {
      for (const options of [{ logger }, {}]) {
        const err = await client(stubFetch(answer).fetch, { ...options, maxRetries: 0 })
          .payments.get(PAYMENT_ID)
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(PspError);
      }
    }
    expect(lines).toEqual([]);
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });

  it('at info: the failed call, one line; to console when no logger is given', async () => {
    const { lines, logger } = recorder();
    const { fetch } = stubFetch(() => apiError(404, 'not_found'));
    await client(fetch, { logger, logLevel: 'info' })
      .payments.get(PAYMENT_ID)
      .catch(() => {});
    expect(lines.map((l) => `${l.level} ${l.msg}`)).toEqual(['info psp-sdk: failed']);
    expect(lines[0]?.meta?.error).toMatchObject({ status: 404, code: 'not_found' });
    const ok = stubFetch(() => json(payment()));
    await client(ok.fetch, { logger, logLevel: 'info' }).payments.get(PAYMENT_ID);
    expect(lines).toHaveLength(1);
    const info = vi.spyOn(console, 'info').mockImplementation(() => {});
    const debug = vi.spyOn(console, 'debug').mockImplementation(() => {});
    await client(fetch, { logLevel: 'info' })
      .payments.get(PAYMENT_ID)
      .catch(() => {});
    expect(info).toHaveBeenCalledTimes(1);
    expect(info.mock.calls[0]?.[0]).toBe('psp-sdk: failed');
    expect(debug).not.toHaveBeenCalled();
  });

  it('PSP_LOG overrides logLevel (case aside)', async () => {
    const { lines, logger } = recorder();
    const { fetch } = stubFetch(() => json(payment()));
    vi.stubEnv('PSP_LOG', 'DEBUG');
    await client(fetch, { logger, logLevel: 'off' }).payments.get(PAYMENT_ID);
    expect(lines.map((l) => l.msg)).toEqual(['psp-sdk: request', 'psp-sdk: response']);
    lines.length = 0;
    vi.stubEnv('PSP_LOG', 'off');
    await client(fetch, { logger, logLevel: 'debug' }).payments.get(PAYMENT_ID);
    expect(lines).toEqual([]);
  });

  it('a PSP_LOG that is not a level: reported once, at warn, naming it and the levels, however many clients', async () => {
    // Issue 26: an invalid PSP_LOG was ignored silently.
    const { lines, logger } = recorder();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { fetch } = stubFetch(() => json(payment()));
    vi.stubEnv('PSP_LOG', 'verbose');
    // Where the level in force holds warnings back, nothing is said, and the report is still owed.
    client(fetch, { logger, logLevel: 'off' });
    client(fetch, { logger, logLevel: 'error' });
    expect(lines).toEqual([]);
    for (let i = 0; i < 3; i++) await client(fetch, { logger }).payments.get(PAYMENT_ID);
    client(fetch);
    client(fetch, { logger, logLevel: 'debug' });
    expect(lines).toEqual([
      {
        level: 'warn',
        msg: 'psp-sdk: PSP_LOG="verbose" is not a log level (debug, info, warn, error or off); using warn',
        meta: undefined,
      },
    ]);
    expect(warn).not.toHaveBeenCalled();
    // Another bad value is news: reported once more.
    vi.stubEnv('PSP_LOG', 'loud');
    client(fetch);
    client(fetch);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[0]).toContain('PSP_LOG="loud" is not a log level');
  });

  it('a runtime that refuses environment reads (Deno without --allow-env) keeps the option', async () => {
    const env = new Proxy(
      {},
      {
        get() {
          throw new Error('NotCapable: Requires env access');
        },
      },
    );
    vi.stubGlobal('process', { ...process, env });
    const { lines, logger } = recorder();
    const { fetch } = stubFetch(() => json(payment()));
    await new PspClient({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      fetch,
      logger,
      logLevel: 'debug',
    }).payments.get(PAYMENT_ID);
    expect(lines).toHaveLength(2);
  });

  it('refuses an unknown logLevel', () => {
    expect(() => client(fetch, { logLevel: 'verbose' as never })).toThrow(PspValidationError);
  });
});

describe('appInfo', () => {
  it('is appended to the User-Agent, as stripe-node does', async () => {
    const { fetch, seen } = stubFetch(() => json(payment()));
    await client(fetch).payments.get(PAYMENT_ID);
    await client(fetch, { appInfo: { name: 'shop-backend' } }).payments.get(PAYMENT_ID);
    await client(fetch, {
      appInfo: { name: 'shop', version: '4.1.0', url: 'https://shop.example' },
    }).payments.get(PAYMENT_ID);
    expect(seen.map((s) => s.headers['user-agent'])).toEqual([
      `psp-sdk/${VERSION}`,
      `psp-sdk/${VERSION} shop-backend`,
      `psp-sdk/${VERSION} shop/4.1.0 (https://shop.example)`,
    ]);
  });

  it('refuses what a header cannot carry', () => {
    for (const appInfo of [
      { name: '' },
      { name: 'a\r\nx-evil: 1' },
      { name: 'магазин' },
      { version: '1' },
      'shop',
    ])
      expect(() => client(fetch, { appInfo: appInfo as never })).toThrow(PspValidationError);
  });

  it('is left to the browser in a browser (it does not let a page set User-Agent)', async () => {
    vi.stubGlobal('window', {});
    vi.stubGlobal('document', {});
    const { fetch, seen } = stubFetch(() => json(payment()));
    await client(fetch, { dangerouslyAllowBrowser: true, appInfo: { name: 'x' } }).payments.get(PAYMENT_ID);
    expect(seen[0]?.headers['user-agent']).toBeUndefined();
  });
});
