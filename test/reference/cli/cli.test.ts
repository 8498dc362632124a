import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { STARTUP_KEYS } from '../../../src/reference/cli/cli-args.js';
import { createReference } from '../../../src/reference/service.js';
import { bundled } from '../../support/bundles.js';

const root = join(import.meta.dirname, '..', '..', '..');
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

interface Cli {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  firstLine: Promise<string>;
}

function cli(args: string[], script?: string, env?: Record<string, string>): Cli {
  const argv = [script ?? bundled('cli'), ...args];
  const child = spawn(process.execPath, argv, {
    cwd: root,
    ...(env ? { env: { ...process.env, ...env } } : {}),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  let resolveLine: (line: string) => void = () => {};
  const firstLine = new Promise<string>((resolve) => {
    resolveLine = resolve;
  });
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    const nl = out.indexOf('\n');
    if (nl >= 0) resolveLine(out.slice(0, nl));
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  // A child that dies before printing must fail the test, not hang it.
  void exit.then(() => resolveLine(out.split('\n')[0] ?? ''));
  return { child, stdout: () => out, stderr: () => err, exit, firstLine };
}

/** The JSON line a `--json` run prints first; a child that died instead fails with its exit and stderr. */
async function factsOf(run: Cli): Promise<Record<string, string>> {
  const line = await run.firstLine;
  if (line.trim().startsWith('{')) return JSON.parse(line) as Record<string, string>;
  const { code, signal } = run.child.exitCode !== null || run.child.signalCode !== null ? await run.exit : {};
  throw new Error(
    `the CLI printed no JSON line (exit ${code ?? signal ?? 'none yet'}); stdout: ${JSON.stringify(run.stdout())}; stderr: ${run.stderr()}`,
  );
}

describe('psp-reference CLI', () => {
  it('--port 0 --json prints the contract JSON line, serves it, logs to stderr only, and exits 0 on SIGTERM', async () => {
    const run = cli(['--port', '0', '--json']);
    const facts = await factsOf(run);
    expect(Object.keys(facts)).toEqual(STARTUP_KEYS);
    expect(facts.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(facts.pay_url).toBe(`${facts.base_url}/pay`);
    expect(facts.api_key).toMatch(/^sk_test_/);
    expect(facts.signing_secret).toMatch(/^thm_/);

    const banks = await fetch(`${facts.base_url}/api/v1/public/banks/sbp`, {
      headers: { authorization: `Bearer ${facts.api_key}` },
    });
    expect(banks.status).toBe(200);
    expect(((await banks.json()) as { items: unknown[] }).items).toHaveLength(30);
    const clock = await fetch(`${facts.base_url}/_simulator/clock`, {
      headers: { authorization: `Bearer ${facts.admin_token}` },
    });
    expect(((await clock.json()) as { mode: string }).mode).toBe('real');

    run.child.kill('SIGTERM');
    expect(await run.exit).toEqual({ code: 0, signal: null });
    // stdout held the JSON line and nothing else; request logs went to stderr, with no secret in them.
    expect(run.stdout()).toBe(`${await run.firstLine}\n`);
    expect(run.stderr()).toContain('/api/v1/public/banks/sbp');
    expect(run.stderr()).not.toContain(facts.api_key);
    expect(run.stderr()).not.toContain(facts.admin_token);
    await expect(fetch(`${facts.base_url}/api/v1/public/banks/sbp`)).rejects.toThrow();
  });

  it('honours --clock manual, --public-url and --trust-proxy, and exits 0 on SIGINT with an SSE stream open', async () => {
    const run = cli([
      '--port',
      '0',
      '--json',
      '--clock',
      'manual',
      '--public-url',
      'https://pay.example.test',
      '--trust-proxy',
    ]);
    const facts = await factsOf(run);
    const admin = { authorization: `Bearer ${facts.admin_token}`, 'content-type': 'application/json' };
    const clock = await fetch(`${facts.base_url}/_simulator/clock`, { headers: admin });
    expect(((await clock.json()) as { mode: string }).mode).toBe('manual');

    const key = { authorization: `Bearer ${facts.api_key}`, 'content-type': 'application/json' };
    const created = await fetch(`${facts.base_url}/api/v1/public/payments`, {
      method: 'POST',
      headers: key,
      body: '{"amount":100}',
    });
    const { payment, payment_url } = (await created.json()) as {
      payment: { id: string };
      payment_url: string;
    };
    expect(payment_url).toBe(`https://pay.example.test/pay/${payment.id}`);

    const patched = await fetch(`${facts.base_url}/_cabinet/merchants/${facts.merchant_id}`, {
      method: 'PATCH',
      headers: admin,
      body: JSON.stringify({ ip_allow_list: ['10.0.0.0/8'] }),
    });
    expect(patched.status).toBe(200);
    const banks = `${facts.base_url}/api/v1/public/banks/sbp`;
    expect((await fetch(banks, { headers: key })).status).toBe(403);
    expect((await fetch(banks, { headers: { ...key, 'x-forwarded-for': '10.9.8.7' } })).status).toBe(200);
    await fetch(`${facts.base_url}/_cabinet/merchants/${facts.merchant_id}`, {
      method: 'PATCH',
      headers: admin,
      body: JSON.stringify({ ip_allow_list: [] }),
    });
    const stream = await fetch(`${facts.base_url}/api/v1/public/events`, {
      headers: { authorization: `Bearer ${facts.api_key}` },
    });
    const reader = stream.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain(': connected');
    // An open stream left hanging would hold the exit past the test's timeout (its pings keep it open).
    run.child.kill('SIGINT');
    expect(await run.exit).toEqual({ code: 0, signal: null });
    // The open stream was ended by the server, not left hanging.
    const ended = (async () => {
      try {
        for (;;) if ((await reader.read()).done) return 'ended';
      } catch {
        return 'reset';
      }
    })();
    expect(['ended', 'reset']).toContain(await ended);
    expect(run.stderr()).toContain('SIGINT received');
  });

  it('prints a readable banner without --json; --quiet keeps request logs off stderr', async () => {
    const run = cli(['--port', '0', '--quiet']);
    await run.firstLine;
    // The banner is several lines; wait for its last one.
    while (!run.stdout().includes('Ctrl+C')) await new Promise((r) => setTimeout(r, 20));
    const text = run.stdout();
    expect(text).toMatch(/API base URL\s+http:\/\/127\.0\.0\.1:\d+/);
    expect(text).toMatch(/Buyer's page\s+http:\/\/127\.0\.0\.1:\d+\/pay\/\{payment_id\}/);
    expect(text).toMatch(/API key\s+sk_test_/);
    expect(text).toMatch(/Admin token\s+\S+/);
    const baseUrl = /API base URL\s+(\S+)/.exec(text)![1]!;
    const apiKey = /API key\s+(\S+)/.exec(text)![1]!;
    const banks = await fetch(`${baseUrl}/api/v1/public/banks/sbp`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(banks.status).toBe(200);
    run.child.kill('SIGTERM');
    expect(await run.exit, run.stderr()).toEqual({ code: 0, signal: null });
    expect(run.stderr()).not.toContain('/api/v1/public/banks/sbp');
  });

  it('a bad flag or value exits 2 with the usage on stderr; --help prints it on stdout and exits 0', async () => {
    // Three processes at once: each only parses its flags, so this stays quick.
    const [badFlag, badValue, help] = [cli(['--prot', '4010']), cli(['--clock', 'fast']), cli(['--help'])];
    expect(await badFlag.exit).toEqual({ code: 2, signal: null });
    expect(badFlag.stdout()).toBe('');
    expect(badFlag.stderr()).toContain("Unknown option '--prot'");
    expect(badFlag.stderr()).toContain('Usage: psp-reference');

    expect((await badValue.exit).code).toBe(2);
    expect(badValue.stderr()).toContain("--clock must be 'real' or 'manual', got 'fast'");
    expect(badValue.stderr()).toContain('Usage: psp-reference');

    expect((await help.exit).code).toBe(0);
    expect(help.stdout()).toContain('Usage: psp-reference');
    expect(help.stdout()).toContain('--clock <real|manual>');
    expect(help.stderr()).toBe('');
  });

  it('--version and -v print the package version on stdout and exit 0, from the source and from the built bin', async () => {
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    const runs = [cli(['--version']), cli(['-v'])];
    // The built bin (from npm test's build stage) carries the version inlined, with no package.json read.
    const built = join(root, 'dist', 'reference', 'bin.js');
    if (existsSync(built)) runs.push(cli(['--version'], built));
    for (const run of runs) {
      expect(await run.exit).toEqual({ code: 0, signal: null });
      expect(run.stdout()).toBe(`${version}\n`);
      expect(run.stderr()).toBe('');
    }
  });

  it('fixed credentials from flags and PSP_REFERENCE_* are the startup facts; a weak one exits 2 without echoing it', async () => {
    const apiKey = 'sk_test_fixed1_Q7vK2mXp9LrT4wYb8NcE3hJd6GsA';
    const adminToken = 'adm_x8Rk3Vq0Tz6Lm2Wp9Yc4Hb7Nf5Jd1Gs';
    const weak = 'whs_abcdefghijklmnopqrstuvwxyz';
    const [good, bad] = [
      cli(['--port', '0', '--json', '--api-key', apiKey], undefined, {
        PSP_REFERENCE_ADMIN_TOKEN: adminToken,
      }),
      cli(['--port', '0', '--webhook-secret', weak]),
    ];
    const facts = await factsOf(good);
    expect(facts).toMatchObject({ api_key: apiKey, admin_token: adminToken });
    const banks = await fetch(`${facts.base_url}/api/v1/public/banks/sbp`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(banks.status).toBe(200);
    good.child.kill('SIGTERM');
    expect((await good.exit).code).toBe(0);
    expect(good.stderr()).not.toContain(apiKey.slice(15));
    expect(good.stderr()).not.toContain(adminToken.slice(4));

    expect(await bad.exit).toEqual({ code: 2, signal: null });
    expect(bad.stderr()).toContain(
      '--webhook-secret is weak: its secret part is mostly a run of neighbouring characters',
    );
    expect(bad.stderr()).not.toContain('abcdefghijklmnop');
    expect(bad.stdout()).toBe('');

    // A state file whose startup key is another: exit 2, not a start that drops the flag or the file's key.
    const dir = mkdtempSync(join(tmpdir(), 'psp-cli-fixed-'));
    try {
      const ref = createReference();
      writeFileSync(join(dir, 'state.json'), JSON.stringify(await ref.control.snapshot()));
      await ref.close();
      const other = cli(['--port', '0', '--state', join(dir, 'state.json'), '--api-key', apiKey]);
      expect(await other.exit).toEqual({ code: 2, signal: null });
      expect(other.stderr()).toContain("apiKey is not the state's startup API key");
      expect(other.stderr()).not.toContain(apiKey.slice(15));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a taken port exits 1 with a clear message', async () => {
    const first = cli(['--port', '0', '--json']);
    const { base_url } = (await factsOf(first)) as { base_url: string };
    const second = cli(['--port', new URL(base_url).port]);
    expect((await second.exit).code).toBe(1);
    expect(second.stderr()).toMatch(/port \d+ is already in use/);
    first.child.kill('SIGTERM');
    expect((await first.exit).code).toBe(0);
  });
});
