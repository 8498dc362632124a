import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Logger, PspClient } from '../../src/index.js';
import { createReference, type Reference } from '../../src/reference/index.js';
import { createWebhookHandler, signWebhook, verifyWebhook } from '../../src/webhooks/index.js';

/**
 * Every error path of the client and of verifyWebhook, checked for every secret in every form a merchant's
 * code might print: message, stack, JSON.stringify, util.inspect (also nested in a cause), and the logger.
 */

const API_SECRET = 'Zq8RedactMeApiKeySecret0001';
const THM = 'thm_RedactMeSigningSecret0002';
const WHS = 'whs_RedactMeWebhookSecret0003';
const WHS_OTHER = 'whs_RedactMeWebhookSecret0004';

const logged: string[] = [];
const logger: Logger = {
  debug: (m, meta) => logged.push(m + inspect(meta, { depth: 10 }) + JSON.stringify(meta ?? null)),
  info: (m, meta) => logged.push(m + inspect(meta, { depth: 10 }) + JSON.stringify(meta ?? null)),
  warn: (m, meta) => logged.push(m + inspect(meta, { depth: 10 }) + JSON.stringify(meta ?? null)),
  error: (m, meta) => logged.push(m + inspect(meta, { depth: 10 }) + JSON.stringify(meta ?? null)),
};

function forms(err: unknown): Record<string, string> {
  const e = err as Error;
  return {
    message: String(e?.message),
    stack: String(e?.stack),
    json: JSON.stringify(e) ?? '',
    inspect: inspect(e, { depth: 10, showHidden: true }),
    string: String(e),
    cause: inspect((e as { cause?: unknown })?.cause, { depth: 10, showHidden: true }),
  };
}

function expectClean(err: unknown, secrets: string[], label: string) {
  expect(err, `${label} must throw`).toBeInstanceOf(Error);
  for (const [form, text] of Object.entries(forms(err))) {
    for (const s of secrets) expect(text.includes(s), `${label}: ${form} contains a secret`).toBe(false);
  }
}

const caught = async (p: Promise<unknown> | (() => unknown)) => {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    return e;
  }
  return undefined;
};

let ref: Reference;
let apiKey: string;

beforeAll(async () => {
  ref = createReference();
  apiKey = ref.api_key;
});
afterAll(async () => {
  await ref.close();
});

const clientFor = (over: Partial<ConstructorParameters<typeof PspClient>[0]> = {}) =>
  new PspClient({
    apiKey,
    baseUrl: 'http://psp.test',
    fetch: (input: string | URL | Request, init?: RequestInit) => ref.fetch(new Request(input, init)),
    logger,
    // Every line the client can write, failed calls included (at the default level those print nothing).
    logLevel: 'debug',
    maxRetries: 1,
    ...over,
  });

describe('no secret in any error form or log line', () => {
  it('construction: a malformed key, a malformed signing secret', async () => {
    const badKey = `sk_nope_${API_SECRET}`;
    expectClean(
      await caught(() => new PspClient({ apiKey: badKey, baseUrl: 'http://x' })),
      [badKey, API_SECRET],
      'bad key',
    );
    const badThm = `thm ${THM}`;
    expectClean(
      await caught(() => new PspClient({ apiKey, baseUrl: 'http://x', signingSecret: badThm })),
      [badThm, THM, apiKey],
      'bad signing secret',
    );
  });

  it('auth: a revoked key, a live key, and signature errors', async () => {
    const { id, api_key } = await ref.control.createApiKey(ref.terminal_id, { mode: 'test' });
    await ref.control.revokeApiKey(id);
    expectClean(
      await caught(clientFor({ apiKey: api_key }).payments.get(crypto.randomUUID())),
      [api_key],
      '401',
    );

    const live = (await ref.control.createApiKey(ref.terminal_id, { mode: 'live' })).api_key;
    expectClean(
      await caught(clientFor({ apiKey: live }).payments.create({ amount: 100 })),
      [live],
      '403 live',
    );

    await ref.control.updateTerminal(ref.terminal_id, { require_signature: true });
    try {
      expectClean(await caught(clientFor().payments.create({ amount: 100 })), [apiKey], 'signature_required');
      expectClean(
        await caught(clientFor({ signingSecret: THM }).payments.create({ amount: 100 })),
        [apiKey, THM],
        'invalid_signature',
      );
    } finally {
      await ref.control.updateTerminal(ref.terminal_id, { require_signature: false });
    }
  });

  it('validation, network, timeout and rate limit', async () => {
    const client = clientFor({ signingSecret: THM });
    expectClean(await caught(client.payments.create({ amount: -1 })), [apiKey, THM], 'validation');

    // A verbose fetch that puts the whole request, headers included, in its error.
    const leaky = clientFor({
      signingSecret: THM,
      fetch: async (input: string | URL | Request, init?: RequestInit) => {
        const req = new Request(input, init);
        throw new TypeError(`fetch failed for ${req.url} with ${JSON.stringify([...req.headers])}`);
      },
    });
    expectClean(await caught(leaky.payments.create({ amount: 100 })), [apiKey, API_SECRET, THM], 'network');

    const hanging = clientFor({
      signingSecret: THM,
      timeout: 20,
      maxRetries: 0,
      fetch: (_i: string | URL | Request, init?: RequestInit) =>
        new Promise((_, reject) =>
          init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
        ),
    });
    expectClean(await caught(hanging.payments.get(crypto.randomUUID())), [apiKey, THM], 'timeout');

    const limited = clientFor({
      signingSecret: THM,
      maxRetries: 0,
      fetch: async () =>
        new Response(
          JSON.stringify({ error: { code: 'rate_limited', message: `key ${apiKey} is limited` } }),
          {
            status: 429,
            headers: { 'retry-after': '1', 'content-type': 'application/json' },
          },
        ),
    });
    expectClean(await caught(limited.payments.get(crypto.randomUUID())), [apiKey, THM], 'rate limit');
  });

  it('the logger never sees a secret', () => {
    expect(logged.length).toBeGreaterThan(0);
    for (const line of logged) {
      for (const s of [apiKey, API_SECRET, THM])
        expect(line.includes(s), 'a log line contains a secret').toBe(false);
    }
  });

  it('verifyWebhook and createWebhookHandler: every refusal', async () => {
    const event = { id: 'evt_1', event: 'payment.succeeded', created_at: '2026-11-21T00:00:00Z', data: {} };
    const { body, headers } = signWebhook(event, WHS);
    const cases: Array<[string, () => unknown]> = [
      ['wrong secret', () => verifyWebhook(body, headers, WHS_OTHER)],
      ['secret array', () => verifyWebhook(body, headers, [WHS_OTHER, `whs_${API_SECRET}`])],
      ['tampered', () => verifyWebhook(`${body} `, headers, WHS)],
      ['stale', () => verifyWebhook(body, headers, WHS, { now: new Date(Date.now() + 3_600_000) })],
      ['no header', () => verifyWebhook(body, {}, WHS)],
      ['parsed body', () => verifyWebhook(event as unknown as string, headers, WHS)],
      ['bad secret form', () => verifyWebhook(body, headers, `nope_${API_SECRET}`)],
      [
        'v1 refused',
        () =>
          verifyWebhook(body, signWebhook(event, WHS, { version: 'v1' }).headers, WHS, { requireV2: true }),
      ],
    ];
    for (const [label, run] of cases) {
      expectClean(await caught(run), [WHS, WHS_OTHER, API_SECRET, `whs_${API_SECRET}`], label);
    }
    const handler = createWebhookHandler({ secret: WHS, on: {} });
    const res = await handler(
      new Request('http://m.test/hook', {
        method: 'POST',
        body,
        headers: { ...headers, 'x-psp-signature': 'sha256=00' },
      }),
    );
    expect(res.status).toBe(400);
    expect((await res.text()).includes(WHS)).toBe(false);
  });
});
