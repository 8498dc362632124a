import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const runtimesBin = new URL('../support/runtimes/node_modules/.bin/', import.meta.url).pathname;

export interface Runtime {
  /** Label used in test names. */
  name: string;
  /** Whether the script is loaded with `import` (ESM) or `require` (CJS). */
  format: 'esm' | 'cjs';
  /** The command line that runs one script file. */
  command(script: string): [string, string[]];
}

// The least Deno needs for the flow: read (node_modules), env (the client reads PSP_* defaults), loopback net.
const denoPermissions = ['--allow-read', '--allow-env', '--allow-net=127.0.0.1,localhost', '--no-prompt'];

/** Node 20 is this process's node; the others are the pinned binaries of test/support/runtimes (scripts/ensure-runtimes.mjs). */
export const runtimes: Runtime[] = [
  { name: 'Node 20 (ESM)', format: 'esm', command: (s) => [process.execPath, [`${s}.mjs`]] },
  { name: 'Node 20 (CJS)', format: 'cjs', command: (s) => [process.execPath, [`${s}.cjs`]] },
  { name: 'Node 24 (ESM)', format: 'esm', command: (s) => [join(runtimesBin, 'node'), [`${s}.mjs`]] },
  { name: 'Node 24 (CJS)', format: 'cjs', command: (s) => [join(runtimesBin, 'node'), [`${s}.cjs`]] },
  // Deno resolves the bare specifiers through the consumer's package.json and node_modules ("manual" mode).
  {
    name: 'Deno 2 (ESM)',
    format: 'esm',
    command: (s) => [
      join(runtimesBin, 'deno'),
      ['run', ...denoPermissions, '--node-modules-dir=manual', `${s}.mjs`],
    ],
  },
  { name: 'Bun (ESM)', format: 'esm', command: (s) => [join(runtimesBin, 'bun'), [`${s}.mjs`]] },
];

export function runtimesInstalled(): boolean {
  return ['node', 'deno', 'bun'].every((b) => existsSync(join(runtimesBin, b)));
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs one fixture script of the consumer under a runtime; kills it after `timeoutMs`. */
export function runScript(
  runtime: Runtime,
  cwd: string,
  script: string,
  timeoutMs = 30_000,
): Promise<RunResult> {
  const [cmd, args] = runtime.command(script);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd,
      env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1', FORCE_COLOR: '0' },
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
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The last line of stdout that parses as a JSON object: what each fixture reports. */
export function lastJson(result: RunResult): Record<string, unknown> {
  const lines = result.stdout.trim().split('\n').reverse();
  for (const line of lines) {
    if (!line.startsWith('{')) continue;
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {}
  }
  throw new Error(
    `no JSON report on stdout (exit ${result.code})\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`,
  );
}
