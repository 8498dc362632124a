import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { STARTUP_KEYS } from '../../src/reference/cli/cli-args.js';

const consumer = inject('consumerDir');
const runtimesBin = new URL('../support/runtimes/node_modules/.bin/', import.meta.url).pathname;

interface Started {
  facts: Record<string, string>;
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string }>;
}

/** Starts the installed `psp-reference` bin and resolves with the JSON line it prints first. */
function startCli(node: string): Promise<Started> {
  const bin = join(consumer, 'node_modules', '.bin', 'psp-reference');
  const child = spawn(node, [bin, '--port', '0', '--json'], {
    cwd: consumer,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no JSON line within 15 s\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, 15_000);
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const nl = stdout.indexOf('\n');
      if (nl < 0) return;
      clearTimeout(timer);
      try {
        const facts = JSON.parse(stdout.slice(0, nl)) as Record<string, string>;
        resolve({
          facts,
          stop: async () => {
            child.kill('SIGTERM');
            return { ...(await exited), stdout };
          },
        });
      } catch (error) {
        child.kill('SIGKILL');
        reject(new Error(`first stdout line is not JSON: ${stdout.slice(0, nl)} (${String(error)})`));
      }
    });
    exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`psp-reference exited ${code} before printing\nstdout: ${stdout}\nstderr: ${stderr}`));
    });
  });
}

describe('the psp-reference bin of the installed package', () => {
  for (const [name, node] of [
    ['Node 20', process.execPath],
    ['Node 24', join(runtimesBin, 'node')],
  ] as const) {
    it(`${name}: --port 0 --json prints the contract's JSON line first, serves the API, stops on SIGTERM with 0`, async () => {
      const cli = await startCli(node);
      try {
        expect(Object.keys(cli.facts).sort()).toEqual(expect.arrayContaining([...STARTUP_KEYS].sort()));
        expect(cli.facts.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        expect(cli.facts.pay_url).toBe(`${cli.facts.base_url}/pay`);
        expect(cli.facts.api_key).toMatch(/^sk_test_/);
        expect(cli.facts.signing_secret).toMatch(/^thm_/);
        const res = await fetch(`${cli.facts.base_url}/api/v1/public/banks/sbp`, {
          headers: { authorization: `Bearer ${cli.facts.api_key}` },
        });
        expect(res.status).toBe(200);
      } finally {
        const end = await cli.stop();
        expect(end).toMatchObject({ code: 0, signal: null });
        // --json: the JSON line is the only thing on stdout (logs go to stderr).
        expect(end.stdout.trim().split('\n')).toHaveLength(1);
      }
    });
  }
});
