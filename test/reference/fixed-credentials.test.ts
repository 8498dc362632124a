import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/webhooks/verify.js';
import { parseCliArgs, UsageError } from '../../src/reference/cli/cli-args.js';
import {
  apiKeyProblem,
  FixedCredentialError,
  fixedAdminTokenProblem,
  webhookSecretProblem,
} from '../../src/reference/domain/credentials.js';
import { createReference } from '../../src/reference/service.js';
import { setup } from './helpers.js';

// Random-looking values of the least length each rule takes, in the alphabets people make them with. Drawn from a
// fixed seed: the rules estimate strength, and a truly random draw of the least length fell under the estimate
// once in a few thousand (a loaded CI run failed on it), a flake no rule change would cure.
let counter = 0;
const randomBytes = (n: number): Buffer => {
  const out: Buffer[] = [];
  for (let have = 0; have < n; have += 32)
    out.push(createHash('sha256').update(`fixed-credentials ${counter++}`).digest());
  return Buffer.concat(out).subarray(0, n);
};
const alnum = (n: number) =>
  Array.from(randomBytes(n * 2))
    .map((b) => 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'[b % 62])
    .join('')
    .slice(0, n);
const hex = (n: number) => randomBytes(n).toString('hex').slice(0, n);
const API_KEY = `sk_test_fixed1_${alnum(32)}`;
const ADMIN_TOKEN = `adm_${alnum(40)}`;
const WEBHOOK_SECRET = `whs_${hex(64)}`;

// Each refused for its form or as guessable; none may show in a message.
const WEAK_SECRETS = [
  'short',
  'a'.repeat(40),
  'abc123'.repeat(6),
  'abcdefghijklmnopqrstuvwxyz',
  '0123456789012345678901234567890123',
  'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab',
  'aaaaaaaabbbbbbbbccccccccdddddddd',
];

describe('fixed credentials: the rules', () => {
  it('take random values of the least length, in letters and digits, hex and base64', () => {
    for (let i = 0; i < 200; i++) {
      expect(apiKeyProblem(`sk_test_${alnum(6)}_${alnum(24)}`)).toBeUndefined();
      expect(apiKeyProblem(`sk_test_${alnum(6)}_${hex(24)}`)).toBeUndefined();
      expect(fixedAdminTokenProblem(hex(32))).toBeUndefined();
      expect(fixedAdminTokenProblem(randomBytes(24).toString('base64'))).toBeUndefined();
      expect(webhookSecretProblem(`whs_${hex(24)}`)).toBeUndefined();
      expect(webhookSecretProblem(`whs_${randomBytes(18).toString('base64url')}`)).toBeUndefined();
    }
  });

  it('refuse the wrong form and the guessable, never quoting the value', () => {
    const refused: Array<[string | undefined, string]> = [
      [apiKeyProblem('sk_test_abc_0123'), "spec's form"],
      [apiKeyProblem(`sk_live_ab12cd_${alnum(32)}`), 'must be a test key'],
      [apiKeyProblem(`thm_${alnum(32)}`), "spec's form"],
      [apiKeyProblem(`sk_test_ab12cd_${alnum(300)}`), 'at most 256'],
      [fixedAdminTokenProblem(`adm_${alnum(20)} ${alnum(20)}`), 'white space'],
      [webhookSecretProblem(`thm_${hex(64)}`), "contract's form"],
      [webhookSecretProblem(`whs_${hex(30)}:x`), "contract's form"],
    ];
    for (const secret of WEAK_SECRETS) {
      refused.push([apiKeyProblem(`sk_test_ab12cd_${secret}`), 'its secret part']);
      refused.push([webhookSecretProblem(`whs_${secret}`), 'its secret part']);
      refused.push([fixedAdminTokenProblem(secret.padEnd(32, secret)), '']);
    }
    for (const [problem, says] of refused) {
      expect(problem).toBeDefined();
      expect(problem).toContain(says);
    }
    const messages = refused.map(([p]) => p).join('\n');
    for (const secret of WEAK_SECRETS.filter((s) => s.length > 5)) expect(messages).not.toContain(secret);
  });
});

describe('fixed credentials: createReference', () => {
  it('the startup facts carry them; the key and the token open their surfaces; endpoints of the startup shop sign with the secret', async () => {
    let delivered: (request: Request) => void = () => {};
    const first = new Promise<Request>((resolve) => {
      delivered = resolve;
    });
    const { ref, call, admin, createPayment, pay } = setup({
      apiKey: API_KEY,
      adminToken: ADMIN_TOKEN,
      webhookSecret: WEBHOOK_SECRET,
      webhookFetch: async (input, init) => {
        delivered(new Request(input, init));
        return new Response(null, { status: 204 });
      },
    });
    expect(ref.api_key).toBe(API_KEY);
    expect(ref.admin_token).toBe(ADMIN_TOKEN);
    expect((await call('/banks/sbp')).status).toBe(200);
    // The key's `sk_test_fixed1` part is its shown prefix, as with a key the reference made.
    const keys = await admin(`/_cabinet/terminals/${ref.terminal_id}/api-keys`);
    expect(keys.body.items).toEqual([expect.objectContaining({ prefix: 'sk_test_fixed1', mode: 'test' })]);

    const endpoint = await admin(`/_cabinet/shops/${ref.shop_id}/webhook-endpoints`, {
      body: { url: 'https://shop.example/hooks' },
    });
    expect(endpoint.status).toBe(201);
    expect(endpoint.body.secret).toBe(WEBHOOK_SECRET);
    const { payment } = await createPayment({ amount: 1000 });
    expect(await pay(payment.id)).toBeLessThan(400);
    const request = await first;
    expect(request.url).toBe('https://shop.example/hooks');
    const event = verifyWebhook(await request.text(), request.headers, WEBHOOK_SECRET, {
      now: ref.clock.now(),
    });
    expect(event).toMatchObject({ event: 'payment.succeeded', data: { id: payment.id } });

    // Another merchant's shop, and a rotation, get random secrets: the fixed one is the startup shop's only.
    const other = await admin('/_cabinet/merchants', { body: {} });
    const second = await admin(`/_cabinet/shops/${other.body.shop_id}/webhook-endpoints`, {
      body: { url: 'https://other.example/hooks' },
    });
    expect(second.body.secret).toMatch(/^whs_[0-9a-f]{64}$/);
    expect(second.body.secret).not.toBe(WEBHOOK_SECRET);
    const rotated = await admin(`/_cabinet/webhook-endpoints/${endpoint.body.id}/rotate-secret`, {
      body: {},
    });
    expect(rotated.body.secret).not.toBe(WEBHOOK_SECRET);
    await ref.close();
  });

  it('a bad or weak one throws before anything starts, naming the option and not the value', () => {
    const bad = [
      { apiKey: `sk_test_ab12cd_${'ab'.repeat(20)}` },
      { adminToken: 'x'.repeat(40) },
      { webhookSecret: `whs_${'0123456789'.repeat(3)}` },
      { apiKey: 'not-a-key-at-all-but-long-enough-0123456789' },
    ];
    for (const options of bad) {
      const [name, value] = Object.entries(options)[0]!;
      let thrown: unknown;
      try {
        createReference(options);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(FixedCredentialError);
      expect(thrown).toBeInstanceOf(TypeError);
      expect((thrown as Error).message).toMatch(new RegExp(`^${name} `));
      expect((thrown as Error).message).not.toContain(value);
      expect(JSON.stringify(thrown) + String((thrown as Error).stack)).not.toContain(value);
    }
  });

  it("with a state, they must be the state's own: the same start again works, a different key or token throws", async () => {
    const first = createReference({ apiKey: API_KEY, adminToken: ADMIN_TOKEN });
    const doc = await first.control.snapshot();
    await first.close();
    const again = createReference({ state: doc, apiKey: API_KEY, adminToken: ADMIN_TOKEN });
    expect([again.api_key, again.admin_token]).toEqual([API_KEY, ADMIN_TOKEN]);
    await again.close();
    const otherKey = `sk_test_other1_${alnum(32)}`;
    expect(() => createReference({ state: doc, apiKey: otherKey })).toThrow(
      /^apiKey is not the state's startup API key/,
    );
    expect(() => createReference({ state: doc, adminToken: `adm_${alnum(40)}` })).toThrow(
      /^adminToken is not the state's admin token/,
    );
  });
});

describe('fixed credentials: the command line', () => {
  it('come from the flags, else from PSP_REFERENCE_* (a flag wins; an empty variable is unset)', () => {
    const env = {
      PSP_REFERENCE_API_KEY: API_KEY,
      PSP_REFERENCE_ADMIN_TOKEN: ADMIN_TOKEN,
      PSP_REFERENCE_WEBHOOK_SECRET: '',
      // The client's variables are not the reference's.
      PSP_API_KEY: `sk_test_client_${alnum(32)}`,
    };
    expect(parseCliArgs([], env)).toMatchObject({ apiKey: API_KEY, adminToken: ADMIN_TOKEN });
    expect(parseCliArgs([], env)).not.toHaveProperty('webhookSecret');
    expect(parseCliArgs([], { PSP_API_KEY: API_KEY })).not.toHaveProperty('apiKey');
    const flagKey = `sk_test_flag01_${alnum(32)}`;
    const flags = ['--api-key', flagKey, '--webhook-secret', WEBHOOK_SECRET];
    expect(parseCliArgs(flags, env)).toMatchObject({
      apiKey: flagKey,
      adminToken: ADMIN_TOKEN,
      webhookSecret: WEBHOOK_SECRET,
    });
    expect(parseCliArgs([])).not.toHaveProperty('apiKey');
  });

  it('a bad one is a UsageError naming the flag or the variable it came from, without the value', () => {
    const weak = `sk_test_ab12cd_${'a1'.repeat(20)}`;
    const cases: Array<[string[], Record<string, string>, RegExp]> = [
      [['--api-key', weak], {}, /^--api-key is weak: its secret part repeats a shorter run/],
      [[], { PSP_REFERENCE_API_KEY: weak }, /^PSP_REFERENCE_API_KEY is weak/],
      [['--admin-token', 'short-token'], {}, /^--admin-token must be at least 32 characters/],
      [
        [],
        { PSP_REFERENCE_WEBHOOK_SECRET: 'thm_x' },
        /^PSP_REFERENCE_WEBHOOK_SECRET must be a webhook secret/,
      ],
    ];
    for (const [argv, env, message] of cases) {
      let thrown: unknown;
      try {
        parseCliArgs(argv, env);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(UsageError);
      expect((thrown as Error).message).toMatch(message);
      for (const value of [...argv.slice(1), ...Object.values(env)])
        expect((thrown as Error).message).not.toContain(value);
    }
  });
});

// Issue 44 item 4: a config that names the startup shop (a webhook endpoint made on it, a test that reads it) must
// survive a restart with the same fixed credentials.
describe('fixed credentials: the startup ids', () => {
  it('are the same at every start with the same key, other for another key, random without one', async () => {
    const key = `sk_test_fixid1_${alnum(32)}`;
    const ids = (r: { merchant_id: string; shop_id: string; terminal_id: string }) => [
      r.merchant_id,
      r.shop_id,
      r.terminal_id,
    ];
    const first = createReference({ apiKey: key });
    const again = createReference({ apiKey: key });
    const other = createReference({ apiKey: `sk_test_fixid2_${alnum(32)}` });
    const random = [createReference(), createReference()];
    try {
      expect(ids(again)).toEqual(ids(first));
      expect(new Set(ids(first)).size).toBe(3);
      for (const id of ids(first))
        expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(ids(other)).not.toEqual(ids(first));
      expect(ids(random[0]!)).not.toEqual(ids(random[1]!));
      // Nothing of the key is in them.
      expect(ids(first).join('')).not.toContain(key.slice(-8));
    } finally {
      await Promise.all([first, again, other, ...random].map((r) => r.close()));
    }
  });
});
