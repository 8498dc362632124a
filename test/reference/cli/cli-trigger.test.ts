import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { WEBHOOK_EVENTS } from '../../../src/schemas/names.js';
import { parseTriggerArgs } from '../../../src/reference/cli/trigger-args.js';
import { type TriggerResult, triggerCommand } from '../../../src/reference/cli/cli-trigger.js';
import { type RunningReference, startReference } from '../../../src/reference/start.js';
import { runBundled } from '../../support/bundles.js';

// `psp-reference trigger` against a real started reference (manual clock: no payout or expiry timer moves anything
// on its own), with a webhook receiver that records what the reference delivers.

interface Delivery {
  event: string;
  data: { id: string };
}

let ref: RunningReference;
let receiver: Server;
let receiverUrl: string;
const deliveries: Delivery[] = [];
const waiters: Array<() => void> = [];
/** Requests that reached the receiver (used as a --base-url that must see no request). */
let receiverHits = 0;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    receiverHits++;
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => {
      body += c;
    });
    req.on('end', () => {
      try {
        deliveries.push(JSON.parse(body) as Delivery);
      } catch {}
      for (const wake of waiters.splice(0)) wake();
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  ref = await startReference({ port: 0, clock: 'manual' });
  const res = await fetch(`${ref.base_url}/_cabinet/shops/${ref.shop_id}/webhook-endpoints`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ref.admin_token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: receiverUrl }),
  });
  expect(res.status).toBe(201);
});

afterAll(async () => {
  await ref?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

/** Resolves with the delivery of `event` about object `id`, as soon as the receiver has it. */
async function delivered(event: string, id: string): Promise<Delivery> {
  for (;;) {
    const found = deliveries.find((d) => d.event === event && d.data.id === id);
    if (found) return found;
    await new Promise<void>((resolve) => waiters.push(resolve));
  }
}

async function trigger(argv: string[], env: Record<string, string | undefined> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await triggerCommand(argv, env, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
  });
  return { code, stdout, stderr };
}

/** A throwaway HTTP server on 127.0.0.1 that counts its requests. */
async function serve(handle: (req: IncomingMessage, res: ServerResponse) => unknown) {
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    void handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get hits() {
      return hits;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The reference behind a relay: `intercept` answers what it wants to (returning true), the rest is passed on. */
function relay(intercept: (req: IncomingMessage, res: ServerResponse) => boolean) {
  return serve(async (req, res) => {
    if (intercept(req, res)) return;
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k)),
    ) as Record<string, string>;
    const answer = await fetch(`${ref.base_url}${req.url}`, {
      method: req.method ?? 'GET',
      headers,
      redirect: 'manual',
      ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
    });
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
}

/** A piece (8 characters) of `secret` past its public prefix (`sk_test_`, `adm_`, `thm_`) found in `text`, or ''. */
function leaks(text: string, secret: string): string {
  const start = /^(sk_(test|live)_|adm_|thm_|whs_)/.exec(secret)?.[0].length ?? 0;
  for (let i = start; i + 8 <= secret.length; i++)
    if (text.includes(secret.slice(i, i + 8))) return secret.slice(i, i + 8);
  return '';
}

const connection = () => [
  '--base-url',
  ref.base_url,
  '--admin-token',
  ref.admin_token,
  '--api-key',
  ref.api_key,
];

describe('psp-reference trigger', () => {
  it.each(WEBHOOK_EVENTS.map((e) => [e]))(
    '%s: makes the objects, prints them as JSON, and the webhook arrives',
    async (event) => {
      const payment = event.startsWith('payment.');
      const argv = [event, ...connection(), '--json', '--amount', '2500'];
      if (payment) argv.push('--webhook-url', receiverUrl);
      const run = await trigger(argv);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toBe('');
      const result = JSON.parse(run.stdout) as TriggerResult;
      expect(run.stdout.trim().split('\n')).toHaveLength(1);
      expect(result.event).toBe(event);
      const first = result.objects[0]!;
      expect(first.type).toBe(payment ? 'payment' : 'payout');
      expect(first.data.amount).toBe(2500);
      const status = {
        'payment.succeeded': 'succeeded',
        'payment.failed': 'failed',
        'payment.cancelled': 'cancelled',
        'payment.expired': 'expired',
        'payment.refunded': 'refunded',
        'payout.succeeded': 'succeeded',
        'payout.failed': 'failed',
      }[event];
      expect(first.data.status).toBe(status);
      if (payment)
        expect((first.data as { webhook_url?: string }).webhook_url ?? receiverUrl).toBe(receiverUrl);
      if (event === 'payment.refunded') {
        expect(result.objects).toHaveLength(2);
        expect(result.objects[1]!.type).toBe('refund');
        expect(result.objects[1]!.data.amount).toBe(2500);
        expect((result.objects[1]!.data as { payment_id?: string }).payment_id).toBe(first.data.id);
      } else expect(result.objects).toHaveLength(1);
      const hook = await delivered(event, first.data.id);
      expect(hook.event).toBe(event);
    },
  );

  it('without --json prints one line per object; --amount defaults to 1000', async () => {
    const run = await trigger(['payment.succeeded', ...connection()]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /^psp-reference: triggered payment\.succeeded\n {2}payment +[0-9a-f-]{36} {2}succeeded {2}amount 1000 RUB\n$/,
    );
  });

  it("works with a merchant admin token and that merchant's key; another merchant's key is refused at the move", async () => {
    const admin = { authorization: `Bearer ${ref.admin_token}`, 'content-type': 'application/json' };
    const worker = (await (
      await fetch(`${ref.base_url}/_cabinet/merchants`, { method: 'POST', headers: admin, body: '{}' })
    ).json()) as { api_key: string; merchant_admin_token: string };
    const own = ['--base-url', ref.base_url, '--admin-token', worker.merchant_admin_token];
    const run = await trigger(['payout.succeeded', ...own, '--api-key', worker.api_key, '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as TriggerResult).objects[0]!.data.status).toBe('succeeded');
    const other = await trigger(['payout.succeeded', ...own, '--api-key', ref.api_key, '--json']);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/404 not_found/);
  });

  it('takes --base-url, --admin-token and --api-key from PSP_BASE_URL, PSP_ADMIN_TOKEN, PSP_API_KEY; a flag wins', async () => {
    const env = { PSP_BASE_URL: ref.base_url, PSP_ADMIN_TOKEN: ref.admin_token, PSP_API_KEY: ref.api_key };
    const run = await trigger(['payout.succeeded', '--json'], env);
    expect(run.code, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as TriggerResult).objects[0]!.data.status).toBe('succeeded');
    const flagWins = await trigger(['payout.failed', '--json', '--base-url', ref.base_url], {
      ...env,
      PSP_BASE_URL: 'http://127.0.0.1:1',
    });
    expect(flagWins.code, flagWins.stderr).toBe(0);
  });

  it.each([
    [
      ['payment.paid'],
      /unknown event "payment\.paid"; valid events: payment\.succeeded, payment\.failed, payment\.cancelled, payment\.expired, payment\.refunded, payout\.succeeded, payout\.failed/,
    ],
    [[], /missing the event to trigger; valid events: payment\.succeeded/],
    [['payment.failed', 'payout.failed'], /one event at a time/],
    [
      ['payment.failed', '--amount', '0'],
      /--amount must be a positive whole number of minor units \(kopecks: 1000 is 10\.00 RUB\), got "0"/,
    ],
    [['payment.failed', '--amount', '12.5'], /--amount must be a positive whole number .* got "12\.5"/],
    // Was node's "Option '--amount' argument is ambiguous. Did you forget to specify the option argument...".
    [['payment.failed', '--amount', '-5'], /--amount must be a positive whole number .* got "-5"$/],
    [['payment.failed', '--amount=-5'], /--amount must be a positive whole number .* got "-5"$/],
    [['payment.failed', '--amount'], /--amount needs a value \(got the flag "--base-url"/],
    [['payment.failed', '--json=yes'], /--json takes no value$/],
    [
      ['payment.failed', '--webhook-url', '--json'],
      /--webhook-url needs a value \(got the flag "--json"; a value that starts with "-" is written --webhook-url=<value>\)/,
    ],
    [['payment.failed', '--amount', '10902'], /--amount 10902 ends in 902/],
    [['payout.failed', '--webhook-url', 'http://127.0.0.1/x'], /--webhook-url .* payment events only/],
    [['payment.failed', '--webhook-url', 'not a url'], /--webhook-url must be an http\(s\) URL/],
    // Was node's "... as in '-- "--colour"": a suggestion whose quote never closed.
    [['payment.failed', '--colour'], /unknown option "--colour"$/],
    [['payment.failed', '-x'], /unknown option "-x"$/],
  ])('%j exits 2 with one line naming the problem, before any request', async (args, message) => {
    const hits = receiverHits;
    const base = receiverUrl.replace('/hooks', '');
    const run = await trigger([
      ...args,
      '--base-url',
      base,
      '--admin-token',
      'adm_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
      '--api-key',
      'sk_test_abcdef_secret',
    ]);
    expect(run.code).toBe(2);
    // One line, the problem then the way to the usage (which each error used to print whole, 20 lines).
    expect(run.stderr).toMatch(/^psp-reference trigger: [^\n]+; run with --help for usage\n$/);
    expect(run.stderr.replace(/; run with --help for usage\n$/, '')).toMatch(message);
    expect(run.stderr).not.toContain('Usage:');
    // Every quote it opens, it closes; none of node's parseArgs wording is left.
    expect(run.stderr.split('"').length % 2, run.stderr).toBe(1);
    expect(run.stderr).not.toMatch(/ambiguous|To specify|as in '/);
    expect(run.stdout).toBe('');
    expect(receiverHits).toBe(hits);
  });

  it('a missing or malformed connection option exits 2 and never shows a secret', async () => {
    const missing = await trigger([
      'payment.failed',
      '--base-url',
      ref.base_url,
      '--admin-token',
      ref.admin_token,
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('missing --api-key (or the environment variable PSP_API_KEY)');
    const noBase = await trigger([
      'payment.failed',
      '--admin-token',
      ref.admin_token,
      '--api-key',
      ref.api_key,
    ]);
    expect(noBase.stderr).toContain('missing --base-url (or the environment variable PSP_BASE_URL)');
    const badBase = await trigger([
      'payment.failed',
      '--base-url',
      'ftp://x',
      '--admin-token',
      'adm_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
      '--api-key',
      ref.api_key,
    ]);
    expect(badBase.stderr).toContain('--base-url must be an http(s) URL, got "ftp://x"');
    const badKey = await trigger([
      'payment.failed',
      '--base-url',
      ref.base_url,
      '--admin-token',
      ref.admin_token,
      '--api-key',
      'thm_not_a_key_42',
    ]);
    expect(badKey.code).toBe(2);
    expect(badKey.stderr).toContain('--api-key must be an API key');
    const pasted = await trigger([ref.api_key, '--base-url', ref.base_url]);
    const asAmount = await trigger(['payment.failed', ...connection(), '--amount', ref.api_key]);
    expect(asAmount.stderr).toContain('--amount must be a positive whole number');
    const asBase = await trigger(['payment.failed', '--base-url', ref.admin_token]);
    expect(asBase.stderr).toContain('--base-url must be an http(s) URL');
    for (const run of [missing, noBase, badBase, badKey, pasted, asAmount, asBase]) {
      expect(run.code).toBe(2);
      for (const secret of [ref.api_key, ref.admin_token, 'thm_not_a_key_42'])
        expect(leaks(run.stderr, secret)).toBe('');
    }
  });

  it('a refused request exits 1 with the service error code, no secret in the message', async () => {
    // The command's own line is the report: no client log dump goes out before it.
    const logs = (['log', 'info', 'warn', 'error', 'debug'] as const).map((m) => vi.spyOn(console, m));
    onTestFinished(() => {
      for (const spy of logs) spy.mockRestore();
    });
    const unknownKey = 'sk_test_abcdef_notarealkey';
    const refused = await trigger([
      'payment.succeeded',
      '--base-url',
      ref.base_url,
      '--admin-token',
      ref.admin_token,
      '--api-key',
      unknownKey,
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/POST \/payments refused: 401 unauthorized: /);
    expect(leaks(refused.stderr, unknownKey)).toBe('');
    const badAdmin = 'adm_wrongwrongwrongwrongwrongwrongwrong';
    const simulator = await trigger([
      'payment.failed',
      '--base-url',
      ref.base_url,
      '--admin-token',
      badAdmin,
      '--api-key',
      ref.api_key,
    ]);
    expect(simulator.code).toBe(1);
    expect(simulator.stderr).toMatch(/GET \/_simulator\/health refused: 401 unauthorized: /);
    expect(leaks(simulator.stderr, badAdmin)).toBe('');
    expect(leaks(simulator.stderr, ref.api_key)).toBe('');
    for (const spy of logs) expect(spy).not.toHaveBeenCalled();
  });

  // A wrong admin token was found at the bank's move, after the payment was made: a stray pending payment.
  it.each(WEBHOOK_EVENTS.map((e) => [e]))(
    '%s: a wrong admin token exits 1 before anything is created',
    async (event) => {
      const before = ref.stats();
      const run = await trigger([
        event,
        ...connection().slice(0, 2),
        '--admin-token',
        'adm_wrong_but_well_formed_token_0123456789',
        '--api-key',
        ref.api_key,
      ]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        /^psp-reference trigger: GET \/_simulator\/health refused: 401 unauthorized: /,
      );
      const after = ref.stats();
      expect([after.payments, after.payouts]).toEqual([before.payments, before.payouts]);
    },
  );

  it('follows no redirect: a 3xx on the control routes exits 1 naming where it led; the other server sees nothing', async () => {
    // Was: the move followed the redirect, took the other server's 200 {} as done, exit 0, payment pending.
    const other = await serve((_, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
    );
    const redirector = await relay((req, res) => {
      if (!req.url?.startsWith('/_simulator/')) return false;
      res.writeHead(307, { location: `${other.url}${req.url}` }).end();
      return true;
    });
    try {
      const before = ref.stats().payments;
      const run = await trigger([
        'payment.succeeded',
        '--base-url',
        redirector.url,
        ...connection().slice(2),
      ]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        /GET \/_simulator\/health refused: 307 unexpected_redirect: HTTP 307: a redirect to 127\.0\.0\.1:\d+, not followed/,
      );
      expect(run.stderr).toContain(new URL(other.url).host);
      expect(other.hits).toBe(0);
      expect(leaks(run.stderr, ref.admin_token)).toBe('');
      expect(ref.stats().payments).toBe(before);
    } finally {
      await Promise.all([other.close(), redirector.close()]);
    }
  });

  it("another server's 200 {} is not success: exit 1, nothing claimed", async () => {
    const other = await serve((_, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
    );
    try {
      const run = await trigger(['payment.succeeded', '--base-url', other.url, ...connection().slice(2)]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('did not answer as a reference does');
      expect(run.stdout).toBe('');
    } finally {
      await other.close();
    }
  });

  it('checks the move: a simulator answer that is not the moved payment exits 1, not 0', async () => {
    const fake = await relay((req, res) => {
      if (!/^\/_simulator\/payments\/[^/]+\/succeed$/.test(req.url ?? '')) return false;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      return true;
    });
    try {
      const run = await trigger(['payment.succeeded', '--base-url', fake.url, ...connection().slice(2)]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        /POST \/_simulator\/payments\/[0-9a-f-]{36}\/succeed did not answer with the payment/,
      );
      expect(run.stdout).toBe('');
    } finally {
      await fake.close();
    }
  });

  it('an unreachable reference exits 1 naming the URL', async () => {
    const run = await trigger([
      'payment.failed',
      '--base-url',
      'http://127.0.0.1:1',
      '--admin-token',
      'adm_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
      '--api-key',
      ref.api_key,
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('cannot reach the reference at http://127.0.0.1:1');
    expect(leaks(run.stderr, ref.api_key)).toBe('');
  });

  it('a --base-url carrying user:password exits 2 without showing it (a key pasted there was echoed whole)', async () => {
    for (const userinfo of [`user:${ref.api_key}`, ref.admin_token, `:${encodeURIComponent(ref.api_key)}`]) {
      const run = await trigger([
        'payment.failed',
        '--base-url',
        `http://${userinfo}@127.0.0.1:1`,
        '--admin-token',
        ref.admin_token,
        '--api-key',
        ref.api_key,
      ]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('--base-url must not carry a user or password');
      for (const secret of [ref.api_key, ref.admin_token]) expect(leaks(run.stderr, secret)).toBe('');
    }
  });

  it("docs/testing.md's trigger command runs as written", async () => {
    const text = readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', 'testing.md'), 'utf8');
    const section = text.slice(text.indexOf('## Triggers'));
    const line = section.split('\n').find((l) => l.startsWith('npx --no-install psp-reference trigger '));
    expect(line, 'the trigger example of docs/testing.md').toBeDefined();
    const env = { PSP_BASE_URL: ref.base_url, PSP_ADMIN_TOKEN: ref.admin_token, PSP_API_KEY: ref.api_key };
    const run = await trigger(line!.split(/\s+/).slice(4), env);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as TriggerResult;
    expect(result.objects.map((o) => `${o.type} ${o.data.status}`)).toEqual([
      'payment refunded',
      'refund succeeded',
    ]);
  });

  it('parses --help', () => {
    expect(parseTriggerArgs(['--help'], {})).toBe('help');
  });

  it('the bin runs it: exit 0 with the JSON line, exit 2 on a bad event', async () => {
    const env = {
      ...process.env,
      PSP_BASE_URL: ref.base_url,
      PSP_ADMIN_TOKEN: ref.admin_token,
      PSP_API_KEY: ref.api_key,
    };
    const run = (args: string[]) => runBundled('cli', ['trigger', ...args], { env });
    const [ok, bad] = await Promise.all([run(['payment.cancelled', '--json']), run(['payment.nope'])]);
    expect(ok.code, ok.stderr).toBe(0);
    expect((JSON.parse(ok.stdout) as TriggerResult).objects[0]!.data.status).toBe('cancelled');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown event "payment.nope"');
  });
});

describe('psp-reference trigger: flags read as this command words them', () => {
  it('a value-taking flag last on the line needs a value', () => {
    expect(() => parseTriggerArgs(['payment.failed', '--amount'], {})).toThrow(/^--amount needs a value$/);
  });
});
