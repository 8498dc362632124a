/**
 * `psp-reference shadow --upstream URL`: shadow mode (shadow/index.ts) as a process. It serves until SIGINT or
 * SIGTERM, then prints the report (a text summary, or one JSON document with `--json`) on stdout and exits 0. Bad
 * flags exit 2; a port that cannot be bound exits 1.
 */
import { authorization } from '../../internal/wire.js';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { redactSecrets } from '../../internal/redact.js';
import { isHttpUrl } from '../../schemas/common.js';
import { type CliOption, optionsHelp, parserOptions } from './usage.js';
import { type RunningShadow, SHADOW_DEFAULTS, shadowSummary, startShadow } from '../shadow/index.js';

const OPTIONS = {
  upstream: {
    type: 'string',
    value: '<url>',
    help: 'the service to shadow: every request goes there and its answer is the one returned (required)',
  },
  port: { type: 'string', default: '4020', value: '<number>', help: 'port to listen on; 0 takes a free one' },
  host: { type: 'string', default: '127.0.0.1', value: '<address>', help: 'address to bind' },
  'max-compare-bytes': {
    type: 'string',
    default: String(SHADOW_DEFAULTS.maxCompareBytes),
    value: '<bytes>',
    help: 'largest upstream answer compared; a larger one goes to the caller unread and is counted as too large',
  },
  'upstream-timeout': {
    type: 'string',
    default: String(SHADOW_DEFAULTS.headersTimeoutMs / 1000),
    value: '<seconds>',
    help: "most seconds the upstream may take for its answer's headers, and again for a compared body; then 504",
  },
  json: {
    type: 'boolean',
    default: false,
    help: 'print one JSON line { url, upstream, admin_token } at start and the report as JSON at exit',
  },
  help: { type: 'boolean', short: 'h', default: false, help: 'show this help' },
} as const satisfies Record<string, CliOption>;

/** The `psp-reference shadow --help` text. */
export const SHADOW_USAGE = `Usage: psp-reference shadow --upstream <url> [options]

A proxy in front of a Payment Service: each request goes to the upstream and gets the upstream's answer, and each
public API request is replayed against an in-process reference (with its own key and ids) and the two answers are
compared: status, error code, the fields and their types, the values the spec fixes, the headers the spec names.
GET /_shadow/report (Authorization: Bearer <admin_token>) shows the differences; SIGINT or SIGTERM prints them and
exits.

Options:
${optionsHelp(OPTIONS)}

Exit status: 0 stopped by a signal; 1 could not start (the port is taken); 2 a bad or missing option.`;

class ShadowUsageError extends Error {
  override readonly name = 'ShadowUsageError';
}

/** Where the command writes. */
export interface ShadowIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

function parse(argv: string[]) {
  let values: {
    upstream?: string | undefined;
    port: string;
    host: string;
    'max-compare-bytes': string;
    'upstream-timeout': string;
    json: boolean;
    help: boolean;
  };
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: parserOptions(OPTIONS),
    }));
  } catch (error) {
    throw new ShadowUsageError(redactSecrets((error as Error).message));
  }
  if (values.help) return 'help' as const;
  const upstream = values.upstream?.trim();
  if (!upstream) throw new ShadowUsageError('missing --upstream <url>');
  if (!isHttpUrl(upstream)) {
    throw new ShadowUsageError(
      `--upstream must be an http(s) URL, got ${JSON.stringify(redactSecrets(upstream).slice(0, 200))}`,
    );
  }
  const port = /^\d{1,5}$/.test(values.port) ? Number(values.port) : Number.NaN;
  if (!(port >= 0 && port <= 65535)) {
    throw new ShadowUsageError(
      `--port must be an integer from 0 to 65535, got ${JSON.stringify(values.port.slice(0, 20))}`,
    );
  }
  const maxCompareBytes = /^\d{1,10}$/.test(values['max-compare-bytes'])
    ? Number(values['max-compare-bytes'])
    : 0;
  if (!(maxCompareBytes > 0)) {
    throw new ShadowUsageError(
      `--max-compare-bytes must be a positive integer, got ${JSON.stringify(values['max-compare-bytes'].slice(0, 20))}`,
    );
  }
  const seconds = /^\d{1,6}(\.\d{1,3})?$/.test(values['upstream-timeout'])
    ? Number(values['upstream-timeout'])
    : 0;
  if (!(seconds > 0)) {
    throw new ShadowUsageError(
      `--upstream-timeout must be a positive number of seconds, got ${JSON.stringify(values['upstream-timeout'].slice(0, 20))}`,
    );
  }
  const timeoutMs = Math.round(seconds * 1000);
  return {
    upstream,
    port,
    host: values.host,
    json: values.json,
    maxCompareBytes,
    upstreamHeadersTimeoutMs: timeoutMs,
    upstreamBodyTimeoutMs: timeoutMs,
  };
}

/**
 * Runs `psp-reference shadow` (argv after the word `shadow`) until a signal. Resolves with the exit code.
 *
 * @example process.exitCode = await shadowCommand(['--upstream', 'https://psp-test.example.com'], io);
 */
export async function shadowCommand(argv: string[], io: ShadowIo): Promise<number> {
  let config: ReturnType<typeof parse>;
  try {
    config = parse(argv);
  } catch (error) {
    io.stderr(`psp-reference shadow: ${(error as Error).message}\n\n${SHADOW_USAGE}\n`);
    return 2;
  }
  if (config === 'help') {
    io.stdout(`${SHADOW_USAGE}\n`);
    return 0;
  }
  let shadow: RunningShadow;
  try {
    const { json: _json, ...options } = config;
    shadow = await startShadow(options);
  } catch (error) {
    io.stderr(`psp-reference shadow: ${redactSecrets((error as Error).message)}\n`);
    return 1;
  }
  // Handlers first: whoever reads the first line may signal at once (on a loaded machine a signal sent between the
  // write and the handlers killed the process).
  const stopped = new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  const { json } = config;
  io.stdout(
    json
      ? `${JSON.stringify({ url: shadow.url, upstream: config.upstream, admin_token: shadow.admin_token })}\n`
      : `psp-reference shadow: ${shadow.url} -> ${config.upstream}\n` +
          `  report: GET ${shadow.url}/_shadow/report (Authorization: ${authorization(shadow.admin_token)})\n`,
  );
  const signal = await stopped;
  io.stderr(`psp-reference shadow: ${signal} received, stopping\n`);
  const report = shadow.report();
  io.stdout(json ? `${JSON.stringify(report)}\n` : shadowSummary(report));
  await shadow.close();
  return 0;
}
