/**
 * `psp-reference`: the reference Payment Service as a real HTTP server, for CI, demos and other languages.
 * Flags and output follow the control contract (docs/reference.md): `--json` prints one JSON line of startup
 * facts on stdout and logs on stderr; SIGINT/SIGTERM stop it cleanly with exit code 0; bad flags exit 2.
 */
import process from 'node:process';
import { banner, type CliConfig, parseCliArgs, startupJson, USAGE, UsageError } from './adapters/cli-args.js';
import { type RunningReference, startReference } from './start.js';

async function main(argv: string[]): Promise<void> {
  let config: CliConfig;
  try {
    config = parseCliArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`psp-reference: ${error.message}\n\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  if (config.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }

  const log = (line: string) => {
    process.stderr.write(`${line}\n`);
  };
  // stdout carries the startup facts only: anything a dependency prints through console goes to stderr.
  for (const method of ['log', 'info', 'debug'] as const) console[method] = console.error;

  let running: RunningReference;
  try {
    running = await startReference({
      host: config.host,
      port: config.port,
      clock: config.clock,
      publicUrl: config.publicUrl,
      trustProxy: config.trustProxy,
      ...(config.faults ? { faults: config.faults } : {}),
      ...(config.seed === undefined ? {} : { seed: config.seed }),
      ...(config.quiet ? {} : { logger: log }),
    });
  } catch (error) {
    process.stderr.write(`psp-reference: ${(error as Error).message}\n`);
    process.exitCode = 1;
    return;
  }

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
    running.close().then(
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
  process.stdout.write(config.json ? `${startupJson(running)}\n` : banner(running, config.clock));
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`psp-reference: ${(error as Error)?.message ?? String(error)}\n`);
  process.exitCode = 1;
});
