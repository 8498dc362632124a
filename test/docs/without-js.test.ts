import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { until } from '../support/sse-server.js';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, PUBLIC_PREFIX } from '../../src/schemas/operations.js';
import { bundled } from '../support/bundles.js';

/**
 * docs/reference.md, "Without JavaScript", run as written: the reference started with the `start` block's flags
 * (the bundled CLI for `npx --no-install psp-reference`, on a free port), every bash block in one bash session (the `vars`
 * block's base URL and receiver pointed at this test's), and the Python, Go and PHP verification of a webhook the
 * reference really delivered to a receiver on 127.0.0.1.
 */
const root = join(import.meta.dirname, '..', '..');
const markdown = readFileSync(join(root, 'docs', 'reference.md'), 'utf8');
const section = markdown.slice(markdown.indexOf('\n## Without JavaScript\n'));
const sectionEnd = section.indexOf('\n## ', 1);
const text = sectionEnd < 0 ? section : section.slice(0, sectionEnd);
const blocks = [...text.matchAll(/^```(\w+)([^\n]*)\n([\s\S]*?)^```$/gm)].map((m) => ({
  lang: m[1]!,
  flags: m[2]!.trim().split(/\s+/).filter(Boolean),
  code: m[3]!,
}));
const only = (lang: string, flag?: string) =>
  blocks.filter((b) => b.lang === lang && (flag ? b.flags.includes(flag) : !b.flags.length));
const one = (lang: string, flag?: string) => {
  const found = only(lang, flag);
  expect(found, `one \`\`\`${lang}${flag ? ` ${flag}` : ''} block`).toHaveLength(1);
  return found[0]!.code;
};

const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
// Python runs everywhere (CI has python3: there a missing one fails the test); Go and PHP where installed.
const tools = { python3: has('python3') || !!process.env.CI, go: has('go'), php: has('php') };
for (const [tool, present] of Object.entries(tools))
  if (!present)
    console.warn(
      `test/docs/without-js.test.ts: the ${tool} verification is skipped: ${tool} is not installed`,
    );

interface Delivery {
  body: Buffer;
  headers: IncomingHttpHeaders;
}

const work = mkdtempSync(join(tmpdir(), 'psp-without-js-'));
const deliveries: Delivery[] = [];
let firstSucceeded: (d: Delivery) => void = () => {};
const succeeded = new Promise<Delivery>((resolve) => {
  firstSucceeded = resolve;
});
let receiver: Server;
let reference: ChildProcess | undefined;
let facts: Record<string, string> = {};
const vars = () => one('bash', 'vars');
const varOf = (name: string) => new RegExp(`^${name}=(\\S+)`, 'm').exec(vars())?.[1];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(204).end();
      const d = { body: Buffer.concat(chunks), headers: req.headers };
      deliveries.push(d);
      if (JSON.parse(d.body.toString('utf8')).event === 'payment.succeeded') firstSucceeded(d);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  // The start block as written, `npx --no-install psp-reference` being this run's bundle of the CLI, on a free port.
  const start = one('bash', 'start').replace(
    /^npx --no-install psp-reference\b/m,
    `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(bundled('cli'))} --port 0 --json --quiet`,
  );
  reference = spawn('bash', ['-c', `set -eu\n${vars()}\n${start}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  reference.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const line = await new Promise<string>((resolve, reject) => {
    reference!.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
    });
    reference!.on('exit', (code) => reject(new Error(`the start block exited ${code}: ${err}`)));
  });
  facts = JSON.parse(line) as Record<string, string>;
});

afterAll(async () => {
  if (reference && reference.exitCode === null) {
    const exited = new Promise((resolve) => reference!.on('exit', resolve));
    reference.kill('SIGTERM');
    await exited;
  }
  await new Promise((resolve) => receiver.close(resolve));
  rmSync(work, { recursive: true, force: true });
});

/** Runs a command to its end without blocking this process (whose receiver must answer meanwhile). */
function run(cmd: string, args: string[], env: Record<string, string> = {}, cwd = work) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(cmd, args, {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    // A block that hangs (a stream never read to its end) fails the test instead of holding the run.
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** What the curl blocks' `# =>` comments say they print, one entry per printed line (see the section's legend). */
function printedByDoc(): string[] {
  return only('bash')
    .flatMap((b) => [...b.code.matchAll(/# => (.*)$/gm)])
    .flatMap((m) => m[1]!.split(' | '));
}

/** `line` is what `said` says: `<...>` any value, `...` any text, else the very text. */
const fits = (said: string, line: string | undefined): boolean =>
  line !== undefined &&
  (/^<.*>$/.test(said)
    ? line.length > 0
    : new RegExp(
        `^${said
          .split('...')
          .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('.*')}$`,
      ).test(line));

/** The script printed what the comments say, in their order and nothing else; `…` takes the lines up to the next one. */
function expectPrinted(lines: string[], said: string[]): void {
  let at = 0;
  said.forEach((want, k) => {
    if (want === '…') {
      const next = said[k + 1];
      while (at < lines.length && !(next !== undefined && fits(next, lines[at]))) at++;
      return;
    }
    expect(
      fits(want, lines[at]),
      `printed line ${at + 1} is ${JSON.stringify(lines[at])}; its comment says ${want}`,
    ).toBe(true);
    at++;
  });
  expect(lines.slice(at), 'lines printed that no comment says').toEqual([]);
}

describe('docs/reference.md, Without JavaScript', () => {
  it('the start block takes the vars block’s fixed credentials: they are the startup facts', () => {
    expect(facts).toMatchObject({ api_key: varOf('PSP_API_KEY'), admin_token: varOf('PSP_ADMIN_TOKEN') });
    expect(varOf('PSP_WEBHOOK_SECRET')).toMatch(/^whs_/);
  });

  it('has curl for every public endpoint of spec section 4', () => {
    const curl = only('bash')
      .map((b) => b.code)
      .join('\n');
    for (const op of Object.values(OPERATIONS)) {
      const path = `${PUBLIC_PREFIX}${op.path}`.replace(/\{id\}/g, '\\$\\w+').replace(/\//g, '\\/');
      const line = new RegExp(`^.*curl[^\\n]*"\\$PSP_BASE_URL${path}"[^\\n]*$`, 'm').exec(curl)?.[0];
      expect(line, `${op.method} ${op.path}`).toBeDefined();
      expect(line!.includes('-X POST'), `${op.method} ${op.path}`).toBe(op.method === 'POST');
    }
  });

  it('the curl blocks run in one bash session, every call answered as the comments say', async () => {
    const script = [
      'set -euo pipefail',
      vars(),
      `PSP_BASE_URL=${facts.base_url}`,
      `HOOK_URL=http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`,
      ...only('bash').map((b) => b.code),
    ].join('\n');
    const r = await run('bash', ['-c', script]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(JSON.parse(lines[0]!)).toMatchObject({
      secret: varOf('PSP_WEBHOOK_SECRET'),
      signature_version: 'v2',
    });
    expectPrinted(lines, printedByDoc());
    expect(r.stdout).toMatch(new RegExp(`^${facts.pay_url}/[0-9a-f-]{36}$`, 'm'));
    expect(lines.at(-1)).toMatch(/^\d{4}-\d\d-\d\dT/);
    const events = deliveries.map((d) => JSON.parse(d.body.toString('utf8')).event as string);
    expect(events).toEqual(
      expect.arrayContaining(['payment.succeeded', 'payment.refunded', 'payout.succeeded']),
    );
  });

  it.skipIf(!tools.python3)(
    'the Python verification takes the delivered webhook and refuses a changed body, secret or time',
    async () => {
      const { body, headers } = await succeeded;
      writeFileSync(join(work, 'verify.py'), one('python'));
      writeFileSync(join(work, 'body.json'), body);
      const harness = `
import sys, time
from verify import verify_psp_webhook as verify
body, sig, secret = open("body.json", "rb").read(), sys.argv[1], sys.argv[2]
real_time = time.time
print(verify(body, sig, secret), verify(body + b" ", sig, secret), verify(body, sig, secret + "x"),
      verify(body, sig.replace("v2=", "v3="), secret))
time.time = lambda: real_time() + 3600
print(verify(body, sig, secret))
`;
      const r = await run('python3', [
        '-c',
        harness,
        String(headers['x-psp-signature']),
        varOf('PSP_WEBHOOK_SECRET')!,
      ]);
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe('True False False False\nFalse\n');
    },
  );

  // Issue 44 item 4: on the docs' manual clock, a delivery made after a one-day advance is signed a day ahead of the
  // wall clock; the verifier accepts it with the service's time as `now`, and refuses it without.
  it.skipIf(!tools.python3)(
    'the Python verification accepts a delivery made after a one-day manual-clock advance, given the service time',
    async () => {
      const admin = { authorization: `Bearer ${facts.admin_token}`, 'content-type': 'application/json' };
      const control = async (path: string, body?: unknown) => {
        const res = await fetch(`${facts.base_url}${path}`, {
          method: body === undefined ? 'GET' : 'POST',
          headers: admin,
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return (await res.json()) as Record<string, unknown>;
      };
      await control('/_simulator/clock/advance', { seconds: 86_400 });
      const created = await fetch(`${facts.base_url}${PUBLIC_PREFIX}/payments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${facts.api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ amount: 1000, order_id: 'a-day-later' }),
      });
      const { payment } = (await created.json()) as { payment: { id: string } };
      await control(`/_simulator/payments/${payment.id}/succeed`, {});
      const about = (d: Delivery) => JSON.parse(d.body.toString('utf8')).data?.id === payment.id;
      // Delivered by the reference's process: waited for in turns, then 5 ms steps, bounded by the test's timeout.
      await until(() => expect(deliveries.some(about)).toBe(true));
      const d = deliveries.find(about)!;
      const clock = await control('/_simulator/clock');
      writeFileSync(join(work, 'verify.py'), one('python'));
      writeFileSync(join(work, 'later.json'), d.body);
      const harness = `
import sys
from datetime import datetime
from verify import verify_psp_webhook as verify
body, sig, secret, clock_now = open("later.json", "rb").read(), sys.argv[1], sys.argv[2], sys.argv[3]
now = datetime.fromisoformat(clock_now.replace("Z", "+00:00")).timestamp()
print(verify(body, sig, secret, now=now), verify(body, sig, secret))
`;
      const r = await run('python3', [
        '-c',
        harness,
        String(d.headers['x-psp-signature']),
        varOf('PSP_WEBHOOK_SECRET')!,
        String(clock.now),
      ]);
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe('True False\n');
    },
  );

  it.skipIf(!tools.go)(
    'the Go verification takes the delivered webhook and refuses a changed body, secret or time',
    async () => {
      const { body, headers } = await succeeded;
      const dir = mkdtempSync(join(work, 'go-'));
      writeFileSync(join(dir, 'go.mod'), 'module verify\n\ngo 1.19\n');
      writeFileSync(join(dir, 'webhook.go'), one('go').replace(/^package \w+/m, 'package main'));
      writeFileSync(
        join(dir, 'main.go'),
        `package main

import (
	"fmt"
	"os"
	"time"
)

func main() {
	body, _ := os.ReadFile("body.json")
	sig, secret, now := os.Args[1], os.Args[2], time.Now()
	v := func(b []byte, s string, at time.Time) bool { return VerifyPspWebhook(b, sig, s, 5*time.Minute, at) }
	fmt.Println(v(body, secret, now), v(append(body, ' '), secret, now), v(body, secret+"x", now), v(body, secret, now.Add(time.Hour)))
}
`,
      );
      writeFileSync(join(dir, 'body.json'), body);
      const r = await run(
        'go',
        ['run', '.', String(headers['x-psp-signature']), varOf('PSP_WEBHOOK_SECRET')!],
        { GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local' },
        dir,
      );
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe('true false false false\n');
    },
  );

  it.skipIf(!tools.php)(
    'the PHP verification takes the delivered webhook and refuses a changed body or secret',
    async () => {
      const { body, headers } = await succeeded;
      writeFileSync(join(work, 'verify.php'), one('php'));
      writeFileSync(join(work, 'body.json'), body);
      const harness = `require 'verify.php';
$b = file_get_contents('body.json'); [, $sig, $secret] = $argv;
echo json_encode([verify_psp_webhook($b, $sig, $secret), verify_psp_webhook($b . ' ', $sig, $secret),
  verify_psp_webhook($b, $sig, $secret . 'x'), verify_psp_webhook($b, $sig, $secret, -1),
  verify_psp_webhook($b, $sig, $secret, 300, time() + 86400)]), "\\n";`;
      const r = await run('php', [
        '-r',
        harness,
        '--',
        String(headers['x-psp-signature']),
        varOf('PSP_WEBHOOK_SECRET')!,
      ]);
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe('[true,false,false,false,false]\n');
    },
  );
});
