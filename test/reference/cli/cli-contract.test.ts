// `psp-reference contract` (src/reference/cli/cli-contract.ts): the bundled CLI runs the contract kit against a
// psp-reference on this machine, started by the same CLI, and exits 0 with every check passing; 1 on a failure;
// 2 on a usage error, a live key included.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listChecks } from '../../../src/conformance/index.js';
import { contractCommand } from '../../../src/reference/cli/cli-contract.js';
import { bundled, runBundled } from '../../support/bundles.js';

const root = join(import.meta.dirname, '..', '..', '..');
let server: ChildProcess;
let facts: Record<string, string>;
const dir = mkdtempSync(join(tmpdir(), 'psp-contract-'));

beforeAll(async () => {
  server = spawn(
    process.execPath,
    [bundled('cli'), '--port', '0', '--json', '--clock', 'manual', '--quiet'],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  facts = await new Promise((resolve, reject) => {
    let out = '';
    server.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(JSON.parse(out.slice(0, nl)) as Record<string, string>);
    });
    server.on('exit', (code) => reject(new Error(`psp-reference exited ${code} before its facts`)));
  });
}, 60_000);

afterAll(async () => {
  if (server.exitCode === null && server.signalCode === null) {
    const exited = new Promise((resolve) => server.on('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `psp-reference contract ...args` to its end. */
const contract = (args: string[]) =>
  runBundled('cli', ['contract', ...args], {
    env: { ...process.env, PSP_API_KEY: '', PSP_BASE_URL: '', PSP_ADMIN_TOKEN: '' },
  });

const connection = () => ['--base-url', facts.base_url!, '--api-key', facts.api_key!];

// Each test starts the CLI; the first runs the whole kit: seconds idle, far longer on a loaded machine.
/** Runs `psp-reference contract` in this process, its output captured; `tty` as the terminal would say. */
async function inProcess(args: string[], tty: boolean) {
  let out = '';
  let err = '';
  const io = {
    stdout: (t: string) => {
      out += t;
    },
    stderr: (t: string) => {
      err += t;
    },
    tty,
  };
  const code = await contractCommand(args, {}, io);
  return { code, out, err };
}

describe('psp-reference contract', { timeout: 180_000 }, () => {
  it('exits 0 against a psp-reference on this machine with every check passing, and writes the JUnit report', async () => {
    const junit = join(dir, 'contract.xml');
    const run = await contract([
      ...connection(),
      '--admin-token',
      facts.admin_token!,
      '--signing-secret',
      facts.signing_secret!,
      '--junit',
      junit,
    ]);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/\n(\d+) passed, 0 failed, 0 skipped, 0 needs-control; /);
    expect(run.code).toBe(0);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(/<testsuites name="psp-sdk contract" tests="(\d+)" failures="0" skipped="0"/);
    expect(xml).toContain('name="idempotency.payment-replay (spec 5.6)"');
    for (const secret of [facts.api_key!, facts.admin_token!, facts.signing_secret!]) {
      expect(run.stdout + xml).not.toContain(secret);
    }
  });

  it('--json prints one JSON result; a check that fails exits 1 and names what came back', async () => {
    const run = await contract([
      '--base-url',
      `${facts.base_url}/not-here`,
      '--api-key',
      facts.api_key!,
      '--only',
      'banks',
      '--json',
    ]);
    expect(run.code).toBe(1);
    const result = JSON.parse(run.stdout) as {
      ok: boolean;
      checks: Array<{ id: string; outcome: string; observed?: { status: number } }>;
    };
    expect(result.ok).toBe(false);
    expect(result.checks.find((c) => c.id === 'banks.directory')).toMatchObject({
      outcome: 'failed',
      observed: { status: 404 },
    });
  });

  it('prints one progress line per group on a TTY, then the summary table', async () => {
    const { code, out, err } = await inProcess([...connection(), '--only', 'auth,banks'], true);
    expect(code).toBe(0);
    expect(err.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^auth\s+3 passed, 3 needs-control \(\d+\.\d s\)$/),
      expect.stringMatching(/^banks\s+2 passed \(\d+\.\d s\)$/),
    ]);
    expect(out).toMatch(/^check\s+spec\s+outcome\nauth\.unknown-key\s+5\.1\s+passed/);
  });

  it('--dry-run lists each check with what it would send, and sends nothing', async () => {
    const run = await contract([...connection(), '--dry-run', '--only', 'idempotency']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/idempotency\.payment-replay\s+5\.6\s+sends payments\.create twice/);
    expect(run.stdout).toMatch(/checks listed \(dry run: nothing sent\)/);
  });

  it('--only takes check ids beside groups, and refuses an unknown one before any request', async () => {
    const run = (only: string) => inProcess([...connection(), '--dry-run', '--only', only], false);
    const listed = await run('banks,idempotency.key-length');
    expect(listed.code).toBe(0);
    const ids = listed.out.match(/^[a-z-]+\.[a-z0-9-]+(?=\s+\d)/gm);
    expect(ids).toEqual(['idempotency.key-length', ...listChecks(['banks']).map((c) => c.id)]);
    const unknown = await run('banks.nope');
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/unknown group or check "banks\.nope"/);
  });

  it.each([
    [
      'a live key',
      ['--base-url', 'http://127.0.0.1:9', '--api-key', 'sk_live_abc123_neverSent0'],
      /live key/,
    ],
    [
      '--json with --junit',
      ['--base-url', 'http://127.0.0.1:9', '--api-key', 'sk_test_abc123_x', '--json', '--junit', 'x.xml'],
      /exclusive/,
    ],
    [
      'an unknown group',
      ['--base-url', 'http://127.0.0.1:9', '--api-key', 'sk_test_abc123_x', '--only', 'nope'],
      /unknown group/,
    ],
    ['an unknown flag', ['--nope'], /Unknown option/],
  ])('exits 2 on %s, before any request', async (_, args, message) => {
    const run = await contract(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toContain('neverSent0');
  });
});
