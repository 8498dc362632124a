// Issue 36: psp-sdk/mcp's optional peer. Installing psp-sdk brings nothing of the MCP SDK; a fresh install of the
// tarball plus @modelcontextprotocol/sdk starts `npx psp-mcp`, which answers tools/list over stdio and drives its
// reference. Without the peer, the bin names the command that installs it.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const consumer = inject('consumerDir');
const root = new URL('../..', import.meta.url).pathname;
const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir() };
let fresh: string;

beforeAll(() => {
  const tarball = (
    JSON.parse(readFileSync(join(consumer, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    }
  ).dependencies['psp-sdk']!;
  const sdk = (
    JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    }
  ).devDependencies['@modelcontextprotocol/sdk']!;
  fresh = mkdtempSync(join(tmpdir(), 'psp-sdk-mcp-'));
  writeFileSync(
    join(fresh, 'package.json'),
    `${JSON.stringify({ name: 'mcp-consumer', private: true, dependencies: { 'psp-sdk': tarball, '@modelcontextprotocol/sdk': sdk } })}\n`,
  );
  const install = (mode: string) =>
    execFileSync(
      'npm',
      ['install', mode, '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock'],
      {
        cwd: fresh,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
  try {
    install('--offline');
  } catch {
    install('--prefer-offline');
  }
});
afterAll(() => {
  if (fresh) rmSync(fresh, { recursive: true, force: true });
});

describe('psp-mcp from the packed package', () => {
  it('installing psp-sdk brings nothing of the MCP SDK', () => {
    expect(existsSync(join(consumer, 'node_modules', 'psp-sdk'))).toBe(true);
    expect(existsSync(join(consumer, 'node_modules', '@modelcontextprotocol'))).toBe(false);
  });

  it('with the MCP SDK installed, `npx psp-mcp` answers tools/list and drives its reference', async () => {
    const client = new Client({ name: 'package-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: 'npx',
        args: ['--no-install', 'psp-mcp'],
        cwd: fresh,
        env,
        stderr: 'pipe',
      }),
    );
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(
        expect.arrayContaining(['payments_create', 'payments_refund', 'confirm', 'buyer_pay']),
      );
      const created = await client.callTool({ name: 'payments_create', arguments: { amount: 1000 } });
      expect(
        (created.structuredContent as { untrusted_data: { payment: { status: string } } }).untrusted_data
          .payment.status,
      ).toBe('pending');
    } finally {
      await client.close();
    }
  });

  it('without it, psp-mcp names the command that installs it', async () => {
    const run = (args: string[]) =>
      promisify(execFile)('npx', ['--no-install', 'psp-mcp', ...args], { cwd: consumer, env }).then(
        (r) => ({ code: 0, ...r }),
        (e: { code: number; stdout: string; stderr: string }) => e,
      );
    const start = await run([]);
    expect(start.code).toBe(1);
    expect(start.stderr).toContain('npm install --save-dev @modelcontextprotocol/sdk');
  });
});
