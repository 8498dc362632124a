import { afterEach, describe, expect, it, vi } from 'vitest';
import { VERSION } from '../../src/client/version.js';
import { type Logger, PspClient, PspValidationError } from '../../src/index.js';
import {
  API_KEY,
  apiError,
  BASE_URL,
  client,
  json,
  PAYMENT_ID,
  payment,
  stubFetch,
} from '../client/helpers.js';

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
  it('at debug: one line per attempt, one info line per retry, one error line for the failed call', async () => {
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
      'error psp-sdk: failed',
    ]);
    expect(JSON.stringify(lines)).not.toContain(API_KEY);
  });

  it('at the default (warn): only the failure, as warn when the service refused the request', async () => {
    const { lines, logger } = recorder();
    const { fetch } = stubFetch(() => apiError(404, 'not_found'));
    await client(fetch, { logger })
      .payments.get(PAYMENT_ID)
      .catch(() => {});
    expect(lines.map((l) => `${l.level} ${l.msg}`)).toEqual(['warn psp-sdk: failed']);
    expect(lines[0]?.meta?.error).toMatchObject({ status: 404, code: 'not_found' });
    const ok = stubFetch(() => json(payment()));
    await client(ok.fetch, { logger }).payments.get(PAYMENT_ID);
    expect(lines).toHaveLength(1);
  });

  it('writes to console when no logger is given', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const debug = vi.spyOn(console, 'debug').mockImplementation(() => {});
    const { fetch } = stubFetch(() => apiError(404, 'not_found'));
    await client(fetch)
      .payments.get(PAYMENT_ID)
      .catch(() => {});
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[0]).toBe('psp-sdk: failed');
    expect(debug).not.toHaveBeenCalled();
  });

  it('PSP_LOG overrides logLevel (case aside); an unknown value is ignored', async () => {
    const { lines, logger } = recorder();
    const { fetch } = stubFetch(() => json(payment()));
    vi.stubEnv('PSP_LOG', 'DEBUG');
    await client(fetch, { logger, logLevel: 'off' }).payments.get(PAYMENT_ID);
    expect(lines.map((l) => l.msg)).toEqual(['psp-sdk: request', 'psp-sdk: response']);
    lines.length = 0;
    vi.stubEnv('PSP_LOG', 'loud');
    await client(fetch, { logger, logLevel: 'off' }).payments.get(PAYMENT_ID);
    vi.stubEnv('PSP_LOG', 'off');
    await client(fetch, { logger, logLevel: 'debug' }).payments.get(PAYMENT_ID);
    expect(lines).toEqual([]);
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
