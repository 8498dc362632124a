// A real redis-server for the tests of psp-sdk/replicas: Debian's binary, started on a free loopback port in a
// temp folder and stopped by the test. `.ci/run` installs it when missing; a developer without it sees those
// suites skipped with the reason, while in CI (CI=true) a missing binary fails them, so a green CI always means
// the Redis paths ran.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function findBinary(): string | undefined {
  for (const candidate of [process.env.REDIS_SERVER, 'redis-server', '/usr/bin/redis-server']) {
    if (!candidate) continue;
    try {
      execFileSync(candidate, ['--version'], { stdio: 'ignore' });
      return candidate;
    } catch {}
  }
  return undefined;
}

/** The redis-server binary, or undefined when this machine has none. */
export const redisBinary = findBinary();

/**
 * Whether the Redis suites can run here. Use as `describe.skipIf(!haveRedis())`. Without the binary it prints
 * why those suites skip, and under CI=true it throws: CI must run them.
 */
export function haveRedis(): boolean {
  if (redisBinary) return true;
  const reason = 'redis-server is not installed (apt-get install redis-server; .ci/run does it)';
  if (process.env.CI === 'true' || process.env.CI === '1') throw new Error(`CI needs Redis: ${reason}`);
  console.warn(`skipping the Redis tests: ${reason}`);
  return false;
}

export interface RedisServer {
  readonly port: number;
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  /** The server process (to SIGKILL it in a test of what a lost store does). */
  readonly process: ChildProcess;
  /** Stops the server (SIGTERM, then waits for it to exit) and removes its folder. */
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()));
}

function launch(port: number, dir: string, extra: string[]): Promise<ChildProcess> {
  // No snapshots and no AOF unless a test asks (extra args come last and win): nothing is left on disk.
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'no',
  ];
  const child = spawn(redisBinary as string, [...args, ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes('Ready to accept connections')) {
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        child.stderr?.resume();
        resolve(child);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${out.slice(-500)}`)));
  });
}

/**
 * Starts a redis-server on a free 127.0.0.1 port. A port taken between the probe and the start is tried again
 * with another. `port` restarts one on a known port (after `stop()`, to test a restart); `args` adds flags
 * (`['--appendonly', 'yes']`). The caller must `stop()` it (an `afterAll`).
 */
export async function startRedisServer(options: { port?: number; dir?: string; args?: string[] } = {}) {
  if (!redisBinary) throw new Error('redis-server is not installed');
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'psp-redis-'));
  let lastError: unknown;
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = options.port ?? (await freePort());
    try {
      const child = await launch(port, dir, options.args ?? []);
      const server: RedisServer = {
        port,
        url: `redis://127.0.0.1:${port}`,
        process: child,
        async stop() {
          child.kill('SIGTERM');
          await exited(child);
          if (!options.dir) rmSync(dir, { recursive: true, force: true });
        },
      };
      return server;
    } catch (error) {
      lastError = error;
      if (options.port) break;
    }
  }
  throw lastError;
}

/**
 * The bound of a `vi.waitFor` on work that goes through a real redis-server: its 1 s default fails on a loaded
 * 2-core machine, and the test's own timeout still bounds the wait.
 */
export const LOADED = { timeout: 20_000, interval: 5 } as const;
