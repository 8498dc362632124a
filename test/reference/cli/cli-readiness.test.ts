// `psp-reference readiness`: the report of a running reference as text, JSON, markdown or JUnit; exit 1 below
// --min, 2 on a usage mistake or a reference it cannot ask.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READINESS_USAGE, readinessCommand } from '../../../src/reference/cli/cli-readiness.js';
import { type RunningReference, startReference } from '../../../src/reference/index.js';

let ref: RunningReference;
beforeAll(async () => {
  ref = await startReference({ port: 0, clock: 'manual' });
});
afterAll(() => ref?.close());

async function run(args: string[], env: Record<string, string> = {}) {
  let out = '';
  let err = '';
  const code = await readinessCommand(args, env, {
    stdout: (t) => {
      out += t;
    },
    stderr: (t) => {
      err += t;
    },
  });
  return { code, out, err };
}

describe('psp-reference readiness', () => {
  it('prints the report as JSON, markdown and text; writes JUnit; exit 0 at or above --min', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'psp-readiness-'));
    try {
      const base = ['--base-url', ref.base_url, '--admin-token', ref.admin_token];
      const json = await run([...base, '--json', '--junit', join(dir, 'r.xml')]);
      expect(json.code).toBe(0);
      expect(JSON.parse(json.out)).toMatchObject({ score: 0, findings: [] });
      expect(readFileSync(join(dir, 'r.xml'), 'utf8')).toContain('<testsuite name="psp-sdk readiness"');
      expect((await run([...base, '--markdown'])).out).toContain('## Payment integration readiness: 0 %');
      expect((await run([...base, '--merchant', ref.merchant_id])).out).toMatch(/^readiness: 0 %/);
      // From the environment, as a CI job sets it.
      expect(
        (await run(['--json'], { PSP_BASE_URL: ref.base_url, PSP_ADMIN_TOKEN: ref.admin_token })).code,
      ).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('exits 1 below --min, saying so', async () => {
    const r = await run(['--base-url', ref.base_url, '--admin-token', ref.admin_token, '--min', '50']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('score 0 % is below --min 50');
  });

  it.each([
    [[], 'missing --base-url'],
    [['--base-url', 'ftp://x'], 'missing --base-url'],
    [['--base-url', 'http://127.0.0.1:1'], 'missing --admin-token'],
    [
      ['--base-url', 'http://127.0.0.1:1', '--admin-token', 'x', '--min', '101'],
      '--min must be a number from 0 to 100',
    ],
    [['--colour'], "Unknown option '--colour'"],
  ])('exits 2 with the usage on %j', async (args, message) => {
    const r = await run(args as string[]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(message);
    expect(r.err).toContain('Usage: psp-reference readiness');
  });

  it('exits 2 when the reference refuses the token, never echoing it', async () => {
    const r = await run(['--base-url', ref.base_url, '--admin-token', 'adm_wrong_token_0123456789abcdef']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('answered 401');
    expect(r.err).not.toContain('0123456789abcdef');
    expect((await run(['--help'])).out).toBe(`${READINESS_USAGE}\n`);
  });
});
