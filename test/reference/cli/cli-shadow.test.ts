import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningReference, startReference } from '../../../src/reference/start.js';
import { bundled } from '../../support/bundles.js';

// `psp-reference shadow` (src/reference/cli/cli-shadow.ts), started from the bundled CLI as a user starts it.

const children: ChildProcess[] = [];
let upstream: RunningReference | undefined;
afterEach(async () => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await upstream?.close();
  upstream = undefined;
});

function run(args: string[]) {
  const child = spawn(process.execPath, [bundled('cli'), 'shadow', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  let lineReady: (line: string) => void = () => {};
  const firstLine = new Promise<string>((resolve) => {
    lineReady = resolve;
  });
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    if (out.includes('\n')) lineReady(out.slice(0, out.indexOf('\n')));
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  void exit.then(() => lineReady(''));
  return { child, firstLine, exit, stdout: () => out, stderr: () => err };
}

describe('psp-reference shadow', () => {
  it('proxies to the upstream, and at SIGTERM prints the report and exits 0', async () => {
    upstream = await startReference({ port: 0 });
    const cli = run(['--upstream', upstream.base_url, '--port', '0', '--json']);
    const line = await cli.firstLine;
    expect(line, cli.stderr()).toMatch(/^\{/);
    const facts = JSON.parse(line) as { url: string; upstream: string; admin_token: string };
    expect(facts.upstream).toBe(upstream.base_url);
    const res = await fetch(`${facts.url}/api/v1/public/banks/sbp`, {
      headers: { authorization: `Bearer ${upstream.api_key}` },
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    const report = await fetch(`${facts.url}/_shadow/report`, {
      headers: { authorization: `Bearer ${facts.admin_token}` },
    });
    expect(await report.json()).toEqual({ compared: 1, differing: 0, dropped: 0, too_large: 0, items: [] });
    cli.child.kill('SIGTERM');
    expect(await cli.exit).toBe(0);
    const last = cli.stdout().trim().split('\n').at(-1)!;
    expect(JSON.parse(last)).toEqual({ compared: 1, differing: 0, dropped: 0, too_large: 0, items: [] });
    expect(cli.stdout()).not.toContain(upstream.api_key);
  });

  it('prints a text summary at SIGINT without --json', async () => {
    upstream = await startReference({ port: 0 });
    const cli = run(['--upstream', upstream.base_url, '--port', '0']);
    expect(await cli.firstLine).toMatch(/^psp-reference shadow: http:\/\/127\.0\.0\.1:\d+ -> /);
    cli.child.kill('SIGINT');
    expect(await cli.exit).toBe(0);
    expect(cli.stdout()).toContain('shadow: 0 requests compared, 0 differed from the reference');
  });

  it.each([
    [[], 'missing --upstream'],
    [['--upstream', 'ftp://x'], '--upstream must be an http(s) URL'],
    [['--upstream', 'http://127.0.0.1:1', '--port', '70000'], '--port must be an integer'],
    [['--upstream', 'http://127.0.0.1:1', '--nope'], 'nope'],
    [
      ['--upstream', 'http://127.0.0.1:1', '--max-compare-bytes', '0'],
      '--max-compare-bytes must be a positive',
    ],
    [
      ['--upstream', 'http://127.0.0.1:1', '--upstream-timeout', 'soon'],
      '--upstream-timeout must be a positive',
    ],
  ])('exits 2 with the usage on %j', async (args, message) => {
    const cli = run(args as string[]);
    expect(await cli.exit).toBe(2);
    expect(cli.stderr()).toContain(message);
    expect(cli.stderr()).toContain('Usage: psp-reference shadow');
  });
});
