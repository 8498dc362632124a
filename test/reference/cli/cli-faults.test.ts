import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseCliArgs, UsageError } from '../../../src/reference/cli/cli-args.js';
import { bundled } from '../../support/bundles.js';

// `--faults <file>` and `--seed <integer>`: rules loaded at start, a bad file stops the start with exit 2 naming
// the file and the field.

const root = join(import.meta.dirname, '..', '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'psp-faults-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** Runs the CLI; resolves with its first stdout line, or with its exit code and stderr when it ends first. */
function run(
  args: string[],
): Promise<{ line?: string; code?: number | null; stderr: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [bundled('cli'), ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
  });
  return new Promise((resolve) => {
    child.stdout!.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      if (out.includes('\n')) resolve({ line: out.slice(0, out.indexOf('\n')), stderr, child });
    });
    child.on('exit', (code) => resolve({ code, stderr, child }));
  });
}

// Each run starts a child process: room for a loaded machine.
describe('psp-reference --faults and --seed', { timeout: 60_000 }, () => {
  it('loads the rules at start and plays them on the public API only', async () => {
    const rules = file(
      'rules.json',
      JSON.stringify([{ kind: 'error', status: 502, match: { method: 'GET' } }]),
    );
    const { line } = await run(['--json', '--port', '0', '--quiet', '--faults', rules, '--seed', '12345']);
    const facts = JSON.parse(line!) as Record<string, string>;
    const pub = await fetch(`${facts.base_url}/api/v1/public/banks/sbp`, {
      headers: { authorization: `Bearer ${facts.api_key}` },
    });
    expect(pub.status).toBe(502);
    const list = await fetch(`${facts.base_url}/_simulator/faults`, {
      headers: { authorization: `Bearer ${facts.admin_token}` },
    });
    expect(list.status).toBe(200);
    expect(((await list.json()) as { items: unknown[] }).items).toMatchObject([
      { kind: 'error', status: 502, hits: 1 },
    ]);
  });

  it.each([
    [
      'a bad rule',
      '[{"kind":"reset"},{"kind":"latency","delay_ms":"soon"}]',
      '[1].delay_ms: must be an integer',
    ],
    ['no array', '{"kind":"reset"}', 'must be a JSON array of fault rules'],
    ['broken JSON', '[{"kind":', 'is not JSON'],
  ])('stops the start with exit 2 on %s, naming the file and the field', async (name, text, message) => {
    const path = file(`${name.replace(/ /g, '-')}.json`, text);
    const { code, stderr, line } = await run(['--json', '--port', '0', '--faults', path]);
    expect(line).toBeUndefined();
    expect(code).toBe(2);
    expect(stderr).toContain(`--faults ${path}: `);
    expect(stderr).toContain(message);
  });

  it('refuses a missing file and a seed that is not an integer, before starting', () => {
    expect(() => parseCliArgs(['--faults', join(dir, 'nope.json')])).toThrow(
      new UsageError(`--faults ${join(dir, 'nope.json')}: cannot be read (ENOENT)`),
    );
    for (const seed of ['1.5', 'abc', '', '99999999999999999999']) {
      expect(() => parseCliArgs(['--seed', seed])).toThrow(/--seed must be an integer/);
    }
    expect(parseCliArgs(['--seed=-7']).seed).toBe(-7);
    expect(parseCliArgs([])).not.toHaveProperty('faults');
  });
});
