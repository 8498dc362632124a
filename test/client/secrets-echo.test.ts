import util from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { redactSecrets } from '../../src/internal/redact.js';
import { type Logger, PspApiError, PspClient, PspResponseError } from '../../src/index.js';
import { API_KEY, BASE_URL, json, PAYMENT_ID, payment, SIGNING_SECRET, stubFetch } from './helpers.js';

// Issue 13.3: a server (or a custom fetch) that echoes what it received. Whatever it puts where, in whatever
// encoding, neither the key nor the signing secret may show in an error field, a serialised error or a log line.

const KEY_SECRET = API_KEY.split('_').slice(3).join('_');
const THM_SECRET = SIGNING_SECRET.slice(4);
const b64 = (s: string) => Buffer.from(s).toString('base64');

/** The key (and the signing secret) in each encoding a server or a fetch may use. */
const ENCODED: Record<string, string> = {
  plain: API_KEY,
  'bearer header': `Bearer ${API_KEY}`,
  'percent %5F': API_KEY.replaceAll('_', '%5F'),
  'percent %5f': API_KEY.replaceAll('_', '%5f'),
  'percent, every byte': [...API_KEY].map((c) => `%${c.charCodeAt(0).toString(16)}`).join(''),
  'percent, twice': API_KEY.replaceAll('_', '%255F'),
  'JSON \\u005f': API_KEY.replaceAll('_', '\\u005f'),
  'JSON \\u005F, every char': [...API_KEY]
    .map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .join(''),
  'JS \\x5f': API_KEY.replaceAll('_', '\\x5f'),
  'HTML &#95;': API_KEY.replaceAll('_', '&#95;'),
  'HTML &#x5F;': API_KEY.replaceAll('_', '&#x5F;'),
  'base64 of the key': b64(API_KEY),
  'base64 of Bearer <key>': b64(`Bearer ${API_KEY}`),
  'base64url of Bearer <key>': Buffer.from(`Bearer ${API_KEY}`).toString('base64url'),
  'base64 of user:key (Basic)': `Basic ${b64(`merchant:${API_KEY}`)}`,
  'hex of the key': Buffer.from(API_KEY).toString('hex'),
  'upper case': API_KEY.toUpperCase(),
  'the secret part alone': KEY_SECRET,
  'signing secret': SIGNING_SECRET,
  'signing secret part, percent-encoded': encodeURIComponent(`${THM_SECRET}`).replaceAll('_', '%5F'),
  'base64 of the signing secret': b64(SIGNING_SECRET),
};

function recordingLogger() {
  const lines: string[] = [];
  const rec = (level: string) => (msg: string, meta?: Record<string, unknown>) =>
    lines.push(`${level} ${msg} ${util.inspect(meta, { depth: null })} ${JSON.stringify(meta)}`);
  const logger: Logger = { debug: rec('debug'), info: rec('info'), warn: rec('warn'), error: rec('error') };
  return { logger, text: () => lines.join('\n'), lines };
}

function allForms(e: unknown): string {
  const err = e as PspApiError;
  return [
    err.message,
    err.stack,
    err.code,
    err.requestId,
    JSON.stringify(err),
    util.inspect(err, { depth: null, showHidden: true }),
    JSON.stringify((err as unknown as PspResponseError).issues ?? []),
    err.headers ? JSON.stringify([...err.headers]) : '',
  ].join('\n');
}

function expectHidden(text: string, encoded: string) {
  expect(text).not.toContain(KEY_SECRET);
  expect(text).not.toContain(THM_SECRET);
  expect(text).not.toContain(encoded);
}

const settle = (p: PromiseLike<unknown>) =>
  Promise.resolve(p).then(
    () => undefined,
    (e: unknown) => e,
  );

afterEach(() => vi.useRealTimers());

describe('a server echoing the secrets', () => {
  it.each(Object.entries(ENCODED))(
    '%s in the error code, X-Request-Id, message and another header: hidden everywhere',
    async (_name, encoded) => {
      const { fetch } = stubFetch(() =>
        json({ error: { code: encoded, message: `you sent ${encoded}.` } }, 400, {
          'x-request-id': encoded,
          'x-echo': encoded,
        }),
      );
      const log = recordingLogger();
      const c = new PspClient({
        apiKey: API_KEY,
        signingSecret: SIGNING_SECRET,
        baseUrl: BASE_URL,
        fetch,
        logger: log.logger,
        logLevel: 'debug',
      });
      const err = await settle(c.payments.get(PAYMENT_ID));
      expect(err).toBeInstanceOf(PspApiError);
      expectHidden(allForms(err), encoded);
      expect(log.lines.length).toBeGreaterThan(1);
      expectHidden(log.text(), encoded);
    },
  );

  it('the Authorization value it received, copied into code and X-Request-Id', async () => {
    const { fetch } = stubFetch((req) => {
      const auth = req.headers.get('authorization') ?? '';
      return json({ error: { code: auth, message: auth } }, 401, { 'x-request-id': auth });
    });
    const c = new PspClient({ apiKey: API_KEY, baseUrl: BASE_URL, fetch });
    const err = (await settle(c.payments.get(PAYMENT_ID))) as PspApiError;
    expect(err.code).not.toContain(KEY_SECRET);
    expect(err.requestId).not.toContain(KEY_SECRET);
    expect(err.code).toBe('Bearer ***');
    expectHidden(allForms(err), API_KEY);
  });

  it('a piece of a secret without its prefix: split across code and message, cut short, or base64 of a piece', async () => {
    const half = 20;
    const { fetch } = stubFetch(() =>
      json(
        {
          error: {
            code: API_KEY.slice(0, 15 + half),
            message: `rest ${KEY_SECRET.slice(half)}; cut ${KEY_SECRET.slice(0, -3)}; thm ${THM_SECRET.slice(6)}`,
          },
        },
        400,
        { 'x-request-id': b64(KEY_SECRET.slice(4, 24)), 'x-echo': SIGNING_SECRET.slice(0, 20) },
      ),
    );
    const log = recordingLogger();
    const c = new PspClient({
      apiKey: API_KEY,
      signingSecret: SIGNING_SECRET,
      baseUrl: BASE_URL,
      fetch,
      logger: log.logger,
      logLevel: 'debug',
    });
    const err = await settle(c.payments.get(PAYMENT_ID));
    expect(err).toBeInstanceOf(PspApiError);
    const text = `${allForms(err)}\n${log.text()}`;
    // Any 10 characters in a row of either secret.
    for (const s of [KEY_SECRET, THM_SECRET])
      for (let i = 0; i + 10 <= s.length; i++) expect(text).not.toContain(s.slice(i, i + 10));
  });

  it('strict: true and an unknown answer field named after the key: not in issues or message', async () => {
    for (const name of [API_KEY, KEY_SECRET, ENCODED['percent %5F'] as string]) {
      const { fetch } = stubFetch(() => json({ ...payment(), [name]: 1, nested: { [name]: 2 } }));
      const c = new PspClient({ apiKey: API_KEY, baseUrl: BASE_URL, fetch, strict: true });
      const err = (await settle(c.payments.get(PAYMENT_ID))) as PspResponseError;
      expect(err).toBeInstanceOf(PspResponseError);
      expect(err.issues.length).toBeGreaterThan(0);
      expectHidden(allForms(err), name);
      expectHidden(err.issues[0]?.message ?? '', name);
    }
  });
});

describe('the event stream echoing the secrets', () => {
  it("a custom fetch's error quoting the key: the debug line hides it", async () => {
    vi.useFakeTimers();
    const log = recordingLogger();
    const c = new PspClient({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      logger: log.logger,
      logLevel: 'debug',
      fetch: async (_input, init) => {
        const auth = new Headers(init?.headers).get('authorization');
        throw new TypeError(
          `fetch failed for ${auth} (${encodeURIComponent(API_KEY).replaceAll('_', '%5F')})`,
        );
      },
    });
    const stream = c.events.stream({ maxRetries: 1 });
    const done = settle(
      (async () => {
        for await (const _ of stream) break;
      })(),
    );
    await vi.runAllTimersAsync();
    await done;
    expect(log.text()).toContain('event stream connection failed');
    expectHidden(log.text(), API_KEY);
  });

  it('an event name equal to the key: the warning hides it', async () => {
    const log = recordingLogger();
    const body = `: connected\n\nevent: ${API_KEY}\ndata: not json\n\nevent: x\ndata: ${b64(API_KEY)}\n\n`;
    const c = new PspClient({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      logger: log.logger,
      logLevel: 'debug',
      fetch: async () => new Response(body, { headers: { 'content-type': 'text/event-stream' } }),
    });
    const stream = c.events.stream({ maxRetries: 0 });
    await settle(
      (async () => {
        for await (const _ of stream) break;
      })(),
    );
    expect(log.text()).toContain('skipped a malformed event');
    expectHidden(log.text(), API_KEY);
  });
});

describe('one redaction', () => {
  it('masks the forms of other secrets too, keeping the prefix of a plain one', () => {
    expect(redactSecrets('key sk_live_zz99yy_Other0123 and adm_Token9 and whs_x')).toBe(
      'key sk_live_*** and adm_*** and whs_***',
    );
    expect(redactSecrets('sk%5Flive%5Fzz99yy%5FOther0123')).toBe('[redacted]');
    expect(redactSecrets(`path /x/${b64('whs_WebhookSecret01')}/y`)).toBe('path [redacted]');
  });

  it('leaves ordinary text alone', () => {
    const text = `payment ${PAYMENT_ID} failed: algorithm_x at 2026-05-06T10:00:00Z, HTTP 503 (retry 2/3) sha256=${'ab'.repeat(32)}`;
    expect(redactSecrets(text)).toBe(text);
  });
});
