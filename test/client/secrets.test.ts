import util from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  PspAbortError,
  type PspApiError,
  PspClient,
  PspConnectionError,
  PspError,
  PspResponseError,
  PspTimeoutError,
  PspValidationError,
} from '../../src/index.js';
import type { ClientOptions } from '../../src/client/options.js';
import { redactSecrets } from '../../src/internal/redact.js';
import type { Logger } from '../../src/index.js';
import {
  API_KEY,
  apiError,
  BASE_URL,
  client,
  json,
  PAYMENT_ID,
  SIGNING_SECRET,
  stubFetch,
} from './helpers.js';

const KEY_SECRET = API_KEY.split('_').slice(3).join('_');
const THM_SECRET = SIGNING_SECRET.slice(4);
const SECRETS = [API_KEY, KEY_SECRET, SIGNING_SECRET, THM_SECRET];

function forms(err: unknown): Record<string, string> {
  const e = err as Error;
  return {
    message: e.message,
    stack: String(e.stack),
    string: String(e),
    json: JSON.stringify(e),
    inspect: util.inspect(e),
    inspectDeep: util.inspect(e, { showHidden: true, depth: null }),
    console: util.format('%o %O %s', e, e, e),
    cause: util.inspect((e as { cause?: unknown }).cause, { showHidden: true, depth: null }),
  };
}

function expectNoSecret(err: unknown) {
  expect(err).toBeInstanceOf(PspError);
  for (const [form, text] of Object.entries(forms(err))) {
    for (const s of SECRETS) expect(text, `${form} leaks a secret`).not.toContain(s);
  }
}

function recordingLogger() {
  const lines: unknown[] = [];
  const rec = (level: string) => (msg: string, meta?: Record<string, unknown>) =>
    lines.push([level, msg, meta]);
  const logger: Logger = { debug: rec('debug'), info: rec('info'), warn: rec('warn'), error: rec('error') };
  return { logger, text: () => util.inspect(lines, { depth: null }) + JSON.stringify(lines), lines };
}

afterEach(() => vi.useRealTimers());

const echo = `key ${API_KEY} and Bearer ${API_KEY} with ${SIGNING_SECRET}`;

describe('no secret in any error form or log line', () => {
  const cases: Array<[string, Partial<ClientOptions>, () => Response | never]> = [
    ['API error echoing the secrets', {}, () => apiError(400, 'bad_request', echo)],
    ['non-JSON error body echoing them', {}, () => new Response(echo, { status: 401 })],
    [
      'rate limit with a cookie',
      {},
      () => apiError(429, 'rate_limited', echo, { 'retry-after': '1', 'set-cookie': `s=${API_KEY}` }),
    ],
    [
      'connection error whose cause names them',
      {},
      () => {
        throw new TypeError(`fetch failed: ${echo}`, { cause: new Error(echo) });
      },
    ],
    ['5xx echoing them', {}, () => apiError(502, 'bad_gateway', echo)],
    ['response that is not JSON', {}, () => new Response(echo, { status: 200 })],
    [
      'strict response drift echoing them',
      { strict: true },
      () => json({ id: API_KEY, extra: SIGNING_SECRET }),
    ],
  ];

  it.each(cases)('%s', async (_name, options, answer) => {
    const { fetch } = stubFetch(() => answer());
    const log = recordingLogger();
    const c = new PspClient({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      signingSecret: SIGNING_SECRET,
      fetch,
      logger: log.logger,
      logLevel: 'debug',
      maxRetries: 1,
      ...options,
    });
    vi.useFakeTimers();
    const p = c.payments.get(PAYMENT_ID).then(
      () => undefined,
      (e: unknown) => e,
    );
    await vi.runAllTimersAsync();
    expectNoSecret(await p);
    expect(log.lines.length).toBeGreaterThan(1);
    for (const s of SECRETS) expect(log.text()).not.toContain(s);
  });

  it('timeout and abort', async () => {
    vi.useFakeTimers();
    const hang = stubFetch(
      (req) =>
        new Promise<Response>((_, reject) =>
          req.signal.addEventListener('abort', () => reject(new Error(echo))),
        ),
    );
    const log = recordingLogger();
    const c = new PspClient({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      signingSecret: SIGNING_SECRET,
      fetch: hang.fetch,
      logger: log.logger,
    });
    const t = c.payments.get(PAYMENT_ID, { timeout: 1_000, maxRetries: 0 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    await vi.advanceTimersByTimeAsync(1_000);
    const timeoutErr = await t;
    expect(timeoutErr).toBeInstanceOf(PspTimeoutError);
    expectNoSecret(timeoutErr);
    const ac = new AbortController();
    const a = c.payments.get(PAYMENT_ID, { signal: ac.signal }).then(
      () => undefined,
      (e: unknown) => e,
    );
    await vi.advanceTimersByTimeAsync(10);
    ac.abort(new Error(echo));
    const abortErr = await a;
    expect(abortErr).toBeInstanceOf(PspAbortError);
    expectNoSecret(abortErr);
    for (const s of SECRETS) expect(log.text()).not.toContain(s);
  });

  it('construction errors never echo the key or the signing secret', () => {
    const bad = [
      { apiKey: `${API_KEY} ` },
      { apiKey: API_KEY.replace('sk_test_', 'sk_prod_') },
      { apiKey: `pk_test_ab12cd_${KEY_SECRET}` },
      { apiKey: API_KEY, signingSecret: THM_SECRET },
      { apiKey: API_KEY, signingSecret: `whs_${THM_SECRET}` },
    ];
    for (const options of bad) {
      let err: unknown;
      try {
        new PspClient({ baseUrl: BASE_URL, ...options });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(PspValidationError);
      expectNoSecret(err);
      expect(JSON.stringify((err as PspValidationError).issues)).not.toContain(KEY_SECRET);
    }
  });

  it('the client itself shows no secret when logged or serialised', () => {
    const c = new PspClient({ apiKey: API_KEY, baseUrl: BASE_URL, signingSecret: SIGNING_SECRET });
    const text = util.inspect(c, { showHidden: true, depth: null }) + JSON.stringify(c) + String(c);
    for (const s of SECRETS) expect(text).not.toContain(s);
    expect(text).toContain('test');
  });

  it('API errors show headers only through the allowlist', async () => {
    const { fetch } = stubFetch(() =>
      apiError(403, 'ip_not_allowed', 'no', {
        'x-request-id': 'req_1',
        'set-cookie': 'sid=abc',
        'x-secret': 'zzz',
      }),
    );
    const err = (await client(fetch)
      .payments.get(PAYMENT_ID)
      .then(
        () => undefined,
        (e: unknown) => e,
      )) as PspApiError;
    expect(err.requestId).toBe('req_1');
    expect(err.headers.get('set-cookie')).toBe('sid=abc');
    const text = JSON.stringify(err) + util.inspect(err);
    expect(text).toContain('req_1');
    expect(text).not.toContain('sid=abc');
    expect(text).not.toContain('zzz');
  });

  it('the wire still carries the real key (redaction is for display only)', async () => {
    const { fetch, seen } = stubFetch(() => json({}, 500));
    await client(fetch, { maxRetries: 0 })
      .payments.get(PAYMENT_ID)
      .then(
        () => undefined,
        () => undefined,
      );
    expect(seen[0]?.headers.authorization).toBe(`Bearer ${API_KEY}`);
  });

  it('error classes keep their subclass identity', async () => {
    const { fetch } = stubFetch(() => new Response('x', { status: 200 }));
    const err = await client(fetch)
      .payments.get(PAYMENT_ID)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(PspResponseError);
    expect(err).not.toBeInstanceOf(PspConnectionError);
  });
});

describe('each client redacts with its own secrets (no process-wide registry)', () => {
  const OTHER_KEY = 'sk_test_zz99yy_Wq7mLx2VnB9hTgY4kD8rJ3';
  const OTHER_SECRET = OTHER_KEY.slice(15);
  // A server that echoes both secret parts, without their prefix: only a redaction that knows a secret finds it.
  const echoBoth = () => apiError(400, 'bad_request', `saw ${KEY_SECRET} and ${OTHER_SECRET}`);

  it("a client's errors and log lines hide its own key without its prefix, and only its own", async () => {
    const logs = [recordingLogger(), recordingLogger()];
    const [a, b] = [API_KEY, OTHER_KEY].map(
      (apiKey, i) =>
        new PspClient({
          apiKey,
          baseUrl: BASE_URL,
          fetch: stubFetch(echoBoth).fetch,
          logger: logs[i]!.logger,
          logLevel: 'debug',
          maxRetries: 0,
        }),
    );
    const errA = await a!.payments.get(PAYMENT_ID).then(undefined, (e: unknown) => e);
    const errB = await b!.payments.get(PAYMENT_ID).then(undefined, (e: unknown) => e);
    const [textA, textB] = [errA, errB].map((e) => Object.values(forms(e)).join('\n'));
    expect(textA).not.toContain(KEY_SECRET);
    expect(logs[0]!.text()).not.toContain(KEY_SECRET);
    expect(textB).not.toContain(OTHER_SECRET);
    expect(logs[1]!.text()).not.toContain(OTHER_SECRET);
    // Each knows nothing of the other's key: with a registry shared by the process, both would be masked in both.
    expect(textA).toContain(OTHER_SECRET);
    expect(textB).toContain(KEY_SECRET);
    // Nor does the redaction of text no client owns: constructing clients registered nothing.
    expect(redactSecrets(`saw ${KEY_SECRET}`)).toBe(`saw ${KEY_SECRET}`);
  });

  it("a validation error naming a metadata key made of the client's secret part hides it", async () => {
    const c = new PspClient({ apiKey: API_KEY, baseUrl: BASE_URL, fetch: stubFetch(() => json({})).fetch });
    const err = await c.payments
      .create({ amount: 100, metadata: { [KEY_SECRET]: 'x'.repeat(501) } })
      .then(undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(PspValidationError);
    expectNoSecret(err);
    expect(JSON.stringify((err as PspValidationError).issues)).not.toContain(KEY_SECRET);
  });
});
