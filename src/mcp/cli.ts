/**
 * `psp-mcp`: the MCP server over stdio (or Streamable HTTP on loopback with --http). Usage in docs/mcp.md. stdout
 * is the protocol's alone: everything else, this CLI's lines included, goes to stderr, and never a key. A live key
 * without --allow-live and a bad flag exit 2; SIGINT, SIGTERM, the client closing stdin or the parent process going away stop it with 0.
 */
import { appendFileSync } from 'node:fs';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { PspValidationError } from '../client/base-errors.js';
import { VERSION } from '../internal/version.js';
import { refusalOf } from './errors.js';
import { serveHttp } from './http.js';
import { createPspMcp, LiveKeyRefused, McpOptionsError } from './index.js';

const USAGE = `Usage: psp-mcp [options]

With no options psp-mcp starts an in-process reference Payment Service (manual clock) and drives it.

  --base-url <url>   drive the service at this URL instead
  --api-key <key>    with this sk_test_ key
  --from-env         take the URL and key from PSP_BASE_URL and PSP_API_KEY (which stay out of the process list);
                     without it those variables are not used, and psp-mcp says so
  --allow-live       accept an sk_live_ key (money-moving tools still ask for confirmation)
  --allow-agent-confirmation
                     against a service, where the client cannot ask the user (no elicitation), let the agent
                     confirm money-moving calls itself with the confirm tool; without it they are refused
  --read-only        only the tools that change nothing
  --tools <a,b,...>  only these tools (by name; tools/list shows them)
  --max-amount <n>   refuse a money-moving call of more than n minor units
  --max-session-amount <n>
                     refuse the money-moving calls of one session past n minor units in all
  --max-money-calls <n>
                     refuse a session's money-moving calls after the n-th
  --decision-log <file>
                     append every decision (tool, redacted arguments, allowed or refused, why) as a JSON line
  --clock <mode>     the reference's clock: manual (default; clock_advance moves it) or real
  --http <port>      serve Streamable HTTP on http://127.0.0.1:<port>/mcp instead of stdio (0: a free port)
  -h, --help         this text
  -v, --version      the version`;

class UsageError extends Error {}

/** How often psp-mcp checks that the process that started it is still there. */
const PARENT_CHECK_MS = 500;

function parse(argv: string[]) {
  let values: ReturnType<typeof read>['values'];
  const read = (args: string[]) =>
    parseArgs({
      args,
      strict: true,
      options: {
        'base-url': { type: 'string' },
        'api-key': { type: 'string' },
        'allow-live': { type: 'boolean' },
        'allow-agent-confirmation': { type: 'boolean' },
        'from-env': { type: 'boolean' },
        'read-only': { type: 'boolean' },
        tools: { type: 'string' },
        'max-amount': { type: 'string' },
        'max-session-amount': { type: 'string' },
        'max-money-calls': { type: 'string' },
        'decision-log': { type: 'string' },
        clock: { type: 'string' },
        http: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    });
  try {
    values = read(argv).values;
  } catch (error) {
    throw new UsageError(refusalOf(error).message.replace(/^psp-mcp failed: /, ''));
  }
  const clock = values.clock ?? 'manual';
  if (clock !== 'manual' && clock !== 'real') throw new UsageError('--clock must be manual or real');
  const http = values.http === undefined ? undefined : Number(values.http);
  if (http !== undefined && !(Number.isInteger(http) && http >= 0 && http <= 65535))
    throw new UsageError('--http must be a port from 0 to 65535');
  const count = (flag: 'max-amount' | 'max-session-amount' | 'max-money-calls') => {
    const v = values[flag];
    if (v === undefined) return undefined;
    if (!/^\d{1,15}$/.test(v)) throw new UsageError(`--${flag} must be a whole number`);
    return Number(v);
  };
  const tools = values.tools
    ?.split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  return {
    ...values,
    clock: clock as 'manual' | 'real',
    http,
    tools,
    maxAmount: count('max-amount'),
    maxSessionAmount: count('max-session-amount'),
    maxMoneyCalls: count('max-money-calls'),
  };
}

async function main(argv: string[]): Promise<void> {
  const args = parse(argv);
  if (args.help) return void process.stdout.write(`${USAGE}\n`);
  if (args.version) return void process.stdout.write(`${VERSION}\n`);
  // Its own words only (what it drives, why it stops): no value of a flag or variable.
  const log = (line: string) => process.stderr.write(`psp-mcp: ${line}\n`);
  // A dependency's console.log would corrupt the protocol on stdout.
  for (const method of ['log', 'info', 'debug'] as const) console[method] = console.error;

  const fromEnv = args['from-env'] ?? false;
  if (!fromEnv && (process.env.PSP_BASE_URL || process.env.PSP_API_KEY))
    log('PSP_BASE_URL/PSP_API_KEY are set but not used: pass --from-env to drive that service');
  const logFile = args['decision-log'];
  const mcp = await createPspMcp({
    baseUrl: args['base-url'],
    apiKey: args['api-key'],
    fromEnv,
    allowLive: args['allow-live'] ?? false,
    allowAgentConfirmation: args['allow-agent-confirmation'] ?? false,
    clock: args.clock,
    readOnly: args['read-only'] ?? false,
    tools: args.tools,
    maxAmountPerCall: args.maxAmount,
    maxAmountPerSession: args.maxSessionAmount,
    maxMoneyCallsPerSession: args.maxMoneyCalls,
    // Appended as it happens: a crash loses no decision made before it. Owner-only, like every file that might
    // hold what a caller sent.
    onDecision: logFile
      ? (decision) => appendFileSync(logFile, `${JSON.stringify(decision)}\n`, { mode: 0o600 })
      : undefined,
  });
  const http = args.http === undefined ? undefined : await serveHttp(mcp, args.http);
  let stopping = false;
  const stop = (why: string) => {
    if (stopping) return;
    stopping = true;
    log(`${why}, stopping`);
    const guard = setTimeout(() => process.exit(0), 5000);
    guard.unref();
    Promise.all([http?.close(), mcp.close()]).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  // `npx psp-mcp --http` runs this under npx: a SIGTERM to npx ends npx alone, and this process would live on
  // holding the port and the reference. Once the parent is gone the process is re-parented, so its ppid changes.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) stop('parent process gone');
  }, PARENT_CHECK_MS).unref();
  process.on('SIGINT', () => stop('SIGINT received'));
  process.on('SIGTERM', () => stop('SIGTERM received'));
  const what =
    mcp.kind === 'reference'
      ? `the in-process reference (${args.clock} clock)`
      : `the service at ${mcp.origin} (${mcp.kind} mode)`;
  if (http) {
    log(`driving ${what}; serving ${http.url}`);
    return;
  }
  const transport = new StdioServerTransport();
  // The client went away: nothing else will ever ask (the reference would keep the process alive).
  process.stdin.once('end', () => stop('stdin closed'));
  await mcp.connect(transport);
  log(`driving ${what} over stdio`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const known =
    error instanceof UsageError ||
    error instanceof LiveKeyRefused ||
    error instanceof PspValidationError ||
    error instanceof McpOptionsError;
  process.stderr.write(
    `psp-mcp: ${refusalOf(error).message.replace(/^psp-mcp failed: /, '')}${error instanceof UsageError ? `\n\n${USAGE}` : ''}\n`,
  );
  process.exit(known ? 2 : 1);
});
