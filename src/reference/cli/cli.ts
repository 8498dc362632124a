/**
 * `psp-reference`: the reference Payment Service as a real HTTP server, for CI, demos and other languages.
 * Flags and output follow the control contract (docs/reference.md): `--json` prints one JSON line of startup
 * facts on stdout and logs on stderr; SIGINT/SIGTERM stop it cleanly with exit code 0; bad flags exit 2.
 * `psp-reference trigger <event>` drives a running reference instead (cli-trigger.ts); `psp-reference shadow`
 * runs shadow mode (cli-shadow.ts).
 */
import process from 'node:process';
import { banner, parseCliArgs, startupJson, USAGE, UsageError } from './cli-args.js';
// The one VERSION, the client's User-Agent's too.
import { VERSION } from '../../internal/version.js';
import { shadowCommand } from './cli-shadow.js';
import { triggerCommand } from './cli-trigger.js';
import { FixedCredentialError } from '../domain/credentials.js';
import { type RunningReference, startReference } from '../start.js';
import { autosave } from '../state/autosave.js';
import { lockStateFile, readStateFile, resolveStatePath, StateFileError } from '../state/file.js';

// Over 80 lines: the dispatch of the subcommands and the start, each branch a call into its module.
async function main(argv: string[]): Promise<void> {
  const io = {
    stdout: (text: string) => process.stdout.write(text),
    stderr: (text: string) => process.stderr.write(text),
  };
  if (argv[0] === 'trigger') {
    process.exitCode = await triggerCommand(argv.slice(1), process.env, io);
    return;
  }
  if (argv[0] === 'readiness') {
    const { readinessCommand } = await import('./cli-readiness.js');
    process.exitCode = await readinessCommand(argv.slice(1), process.env, io);
    return;
  }
  if (argv[0] === 'shadow') {
    process.exitCode = await shadowCommand(argv.slice(1), io);
    return;
  }
  if (argv[0] === 'contract') {
    // Loaded only for this subcommand: the kit (and the client it drives) stays out of a server's start.
    const { contractCommand } = await import('./cli-contract.js');
    process.exitCode = await contractCommand(argv.slice(1), process.env, {
      ...io,
      tty: !!process.stderr.isTTY,
    });
    return;
  }
  const { help, version, json, quiet, state: given, ...options } = parseCliArgs(argv, process.env);
  if (help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (version) {
    process.stdout.write(`${VERSION}\n`);
    return;
  }

  const log = (line: string) => {
    process.stderr.write(`${line}\n`);
  };
  // stdout carries the startup facts only: anything a dependency prints through console goes to stderr.
  for (const method of ['log', 'info', 'debug'] as const) console[method] = console.error;

  // Resolved once: a symlink is written through, and nothing later moves the saves. Locked before it is read, so a
  // second reference on the same file stops here instead of overwriting the first one's saves.
  const file = given === undefined ? undefined : await resolveStatePath(given);
  const lock = file === undefined ? undefined : lockStateFile(file);
  // At every exit the process sees, the lock goes, unless it records a failed save for the next start to report
  // (a kill -9 leaves it: the next start finds its process gone and takes it over).
  if (lock) process.on('exit', () => lock.release());
  if (lock?.previous)
    log(
      `psp-reference: the last save failed at ${lock.previous.at} (${lock.previous.message}): ${file} holds the state saved before it`,
    );
  const state = file === undefined ? undefined : await readStateFile(file);
  // Written after changes too, not only at a signal: a crash (kill -9, OOM, power cut) loses about a second.
  let started: RunningReference | undefined;
  const saver = file
    ? autosave(
        file,
        async () => {
          if (!started) throw new Error('the reference has not started');
          return started.control.snapshot();
        },
        log,
        undefined,
        lock ? { lock } : {},
      )
    : undefined;
  const running = await startReference({
    ...options,
    ...(state === undefined ? {} : { state }),
    // What happens while it starts (the first merchant made) is not yet a change to save.
    ...(saver ? { onChange: () => started && saver.changed(), stateSaving: saver.status } : {}),
    // The CLI owns its process, so it may take @hono/node-server's default for a dedicated server (in-process,
    // startReference leaves the globals alone).
    overrideGlobalObjects: true,
    ...(quiet ? {} : { logger: log }),
  });
  started = running;

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      log(`psp-reference: ${signal} again, exiting without waiting`);
      process.exit(1);
    }
    stopping = true;
    log(`psp-reference: ${signal} received, stopping`);
    // close() ends streams and sockets at once; the timer only guards against a hung webhook receiver.
    const guard = setTimeout(() => {
      log('psp-reference: shutdown took over 5 s, exiting');
      process.exit(0);
    }, 5000);
    guard.unref();
    // The state is saved as it was at the signal, before close() cancels anything (after a write in flight).
    const saved = saver
      ? saver.save().then(() => log(`psp-reference: state written to ${file}`))
      : Promise.resolve();
    saved
      .then(() => running.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          log(`psp-reference: error while stopping: ${(error as Error).message}`);
          process.exit(1);
        },
      );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // Handlers first: whoever reads the facts may signal at once.
  process.stdout.write(json ? `${startupJson(running)}\n` : banner(running, options.clock));
  // Where the state is saved, said at the start (GET /_simulator/health says whether it is, at any time).
  if (file) log(`psp-reference: the state is saved to ${file} within 0.5 s of each change, and at a stop`);
}

// A bad flag or state file exits 2 (a bad flag with the usage), as does a fixed credential the state file contradicts;
// anything else, a port taken say, exits 1.
main(process.argv.slice(2)).catch((error: unknown) => {
  const usage = error instanceof UsageError ? `\n\n${USAGE}` : '';
  process.stderr.write(`psp-reference: ${(error as Error)?.message ?? String(error)}${usage}\n`);
  const bad = [UsageError, StateFileError, FixedCredentialError].some((type) => error instanceof type);
  process.exitCode = bad ? 2 : 1;
});
