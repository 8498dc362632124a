import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { inject } from 'vitest';

// The scripts that tests start as child processes, bundled once per vitest run by the global setup
// (test/support/global-setup.ts) from the same sources. Started through `node --import tsx`, each child paid
// 1.3-2 s of CPU to compile src/ on the fly; the bundle starts in about 0.3 s. The bundle is made from src/ at
// the start of every run, so a test never runs yesterday's code (dist/ would be as old as the last build), and
// each run has a folder of its own, so two runs at once (a watch mode beside `npm test`) never swap files under
// each other. Dependencies stay external: they load from node_modules as they do for a user.

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder of this run's bundles (test/support/global-setup.ts). */
    bundleDir: string;
  }
}

const root = join(import.meta.dirname, '..', '..');

/** Entry name -> source file, relative to the repository's root. */
export const BUNDLE_ENTRIES = {
  cli: 'src/reference/cli/cli.ts',
  mcp: 'src/mcp/cli.ts',
  'stream-child': 'test/replicas/fixtures/stream-child.ts',
  'webhook-receiver': 'test/replicas/fixtures/webhook-receiver.ts',
  'refund-memory-run': 'test/reference/refund-memory-run.ts',
} as const;

/** Where the runs' bundle folders go (under the repository, so the bundles' imports resolve its node_modules). */
export const BUNDLES_ROOT = join(root, 'test-output', 'bundles');

/** The bundled script of one entry: `spawn(process.execPath, [bundled('cli'), ...args])`. */
export function bundled(name: keyof typeof BUNDLE_ENTRIES): string {
  return join(inject('bundleDir'), `${name}.mjs`);
}

/** What a bundled script printed, and how it ended. */
export interface BundledRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the bundled script `name` with `args` to its end, its output captured. */
export function runBundled(
  name: keyof typeof BUNDLE_ENTRIES,
  args: string[],
  options: { env?: NodeJS.ProcessEnv | undefined; cwd?: string | undefined } = {},
): Promise<BundledRun> {
  const child = spawn(process.execPath, [bundled(name), ...args], {
    cwd: options.cwd ?? root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: options.env ?? process.env,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    stdout += c;
  });
  child.stderr.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}
