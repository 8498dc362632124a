// Starts a server script in a child process and waits for the facts it sends once listening.

import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Forks `servers/<script>` with `args`; resolves to { child, facts } once the child reports, or rejects. `wrap` runs
 * node under a command (`['valgrind', '--tool=callgrind']`), which must pass file descriptor 3 (IPC) through.
 */
export function startServer(script, args = [], { execArgv = [], timeoutMs = 30_000, env, wrap = [] } = {}) {
  const file = fileURLToPath(new URL(script, import.meta.url));
  const [execPath = process.execPath, ...before] = wrap.length ? [...wrap, process.execPath] : [];
  const child = fork(file, args, {
    execPath,
    execArgv: [...before, '--expose-gc', ...execArgv],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: env ? { ...process.env, ...env } : process.env,
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`${script} did not start within ${timeoutMs} ms`));
    }, timeoutMs);
    child.once('message', (facts) => {
      clearTimeout(timer);
      resolve({ child, facts, stop: () => stop(child) });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code} before it started`));
    });
  });
}

/** Disconnects a child (it closes itself) and kills it if it lingers. */
export function stop(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    const t = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(t);
      resolve();
    });
    if (child.connected) child.disconnect();
    else child.kill();
  });
}

/** Asks a child for a value over IPC: sends `msg`, resolves with the first reply that has `key`. */
export function ask(child, msg, key) {
  return new Promise((resolve) => {
    const on = (reply) => {
      if (reply && key in reply) {
        child.off('message', on);
        resolve(reply[key]);
      }
    };
    child.on('message', on);
    child.send(msg);
  });
}
