/**
 * `psp-reference contract`: runs the contract kit (psp-sdk/conformance) against a deployment and prints what
 * passed, for a person (a progress line per group on a TTY, a summary table) or a CI (`--json`, `--junit FILE`).
 * Exit status: 0 every check passed (skipped and needs-control do not fail a run), 1 a check failed or the run
 * could not start, 2 a usage error (a live key included), found before any request.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  CHECK_GROUPS,
  type ContractOptions,
  ContractUsageError,
  formatContractSummary,
  listChecks,
  runContract,
  toJUnit,
} from '../../conformance/index.js';
import { redactSecrets } from '../../internal/redact.js';
import { type CliOption, optionsHelp, parserOptions } from './usage.js';

const OPTIONS = {
  'base-url': { type: 'string', value: '<url>', help: "the service's base URL (PSP_BASE_URL)" },
  'api-key': {
    type: 'string',
    value: '<key>',
    help: 'a test API key, sk_test_... (PSP_API_KEY); a live key is refused',
  },
  'signing-secret': {
    type: 'string',
    value: '<thm_...>',
    help: "the terminal's signing secret (PSP_SIGNING_SECRET): the signing checks run with it",
  },
  'admin-token': {
    type: 'string',
    value: '<token>',
    help: "a psp-reference's admin token (PSP_ADMIN_TOKEN): the checks that need its cabinet or clock run",
  },
  'webhook-public-url': {
    type: 'string',
    value: '<url>',
    help: 'a public URL that forwards to the local webhook receiver, for a service that cannot reach 127.0.0.1',
  },
  'webhook-port': {
    type: 'string',
    value: '<port>',
    help: "the local receiver's port on 127.0.0.1 (default: any free one)",
  },
  'webhook-secret': {
    type: 'string',
    value: '<whs_...>',
    help: "the shop's webhook endpoint secret (PSP_WEBHOOK_SECRET), which signs deliveries; not needed with --admin-token",
  },
  only: {
    type: 'string',
    value: '<group|check,...>',
    help: `run only these groups (${CHECK_GROUPS.join(', ')}) and checks (ids as --dry-run lists them)`,
  },
  'time-limit': {
    type: 'string',
    value: '<seconds>',
    help: 'stop starting checks after this long (default 180); the run ends within it plus one check (60 s) and the clean-up (30 s)',
  },
  'max-requests': {
    type: 'string',
    value: '<n>',
    help: 'send at most this many requests (default 600); checks past it are skipped',
  },
  json: { type: 'boolean', default: false, help: 'print the result as one JSON object' },
  junit: {
    type: 'string',
    value: '<file>',
    help: 'write a JUnit XML report to the file (and the summary to stdout)',
  },
  'dry-run': { type: 'boolean', default: false, help: 'list what each check would send, and send nothing' },
  help: { type: 'boolean', short: 'h', default: false, help: 'show this help' },
} as const satisfies Record<string, CliOption>;

/** The `psp-reference contract --help` text. */
export const CONTRACT_USAGE = `Usage: psp-reference contract --base-url <url> --api-key <key> [options]

Runs the contract kit: the checks of spec sections 2-8 against any deployment (the real test-mode service,
a staging build, a psp-reference), with a test key. Every payment it leaves pending is cancelled.

Options:
${optionsHelp(OPTIONS)}

Exit status: 0 every check passed (skipped and needs-control checks do not fail a run); 1 a check failed, or the
run could not start; 2 a bad or missing parameter (a live key included), found before any request.`;

class UsageProblem extends Error {}

/** Parses and checks the arguments: the options of runContract, or 'help'. */
function parse(
  argv: string[],
  env: Record<string, string | undefined>,
): 'help' | { options: ContractOptions; json: boolean; junit: string | undefined } {
  let values: ReturnType<typeof parseFlags>['values'];
  try {
    ({ values } = parseFlags(argv));
  } catch (error) {
    throw new UsageProblem(redactSecrets((error as Error).message));
  }
  if (values.help) return 'help';
  const need = (flag: 'base-url' | 'api-key', variable: string) => {
    const value = (values[flag] ?? env[variable])?.trim();
    if (!value) throw new UsageProblem(`missing --${flag} (or the environment variable ${variable})`);
    return value;
  };
  const baseUrl = need('base-url', 'PSP_BASE_URL');
  const apiKey = need('api-key', 'PSP_API_KEY');
  if (values.json && values.junit !== undefined) throw new UsageProblem('--json and --junit are exclusive');
  const only = values.only
    ?.split(',')
    .map((g) => g.trim())
    .filter(Boolean);
  const ids = listChecks().map((c) => c.id);
  const unknown = only?.find((g) => !(CHECK_GROUPS as readonly string[]).includes(g) && !ids.includes(g));
  if (unknown !== undefined)
    throw new UsageProblem(
      `unknown group or check ${JSON.stringify(redactSecrets(unknown).slice(0, 40))}; groups: ${CHECK_GROUPS.join(', ')} (--dry-run lists every check)`,
    );
  const port = values['webhook-port'];
  if (port !== undefined && !/^\d{1,5}$/.test(port))
    throw new UsageProblem('--webhook-port must be a port number');
  const publicUrl = values['webhook-public-url'];
  if (publicUrl !== undefined && !/^https?:\/\//.test(publicUrl))
    throw new UsageProblem('--webhook-public-url must be an http(s) URL');
  const count = (flag: 'time-limit' | 'max-requests', max: number) => {
    const value = values[flag];
    if (value === undefined) return undefined;
    if (!/^\d{1,9}$/.test(value) || Number(value) < 1 || Number(value) > max)
      throw new UsageProblem(`--${flag} must be a whole number from 1 to ${max}`);
    return Number(value);
  };
  const timeLimit = count('time-limit', 86_400);
  const maxRequests = count('max-requests', 1_000_000);
  const secret = values['webhook-secret'] ?? env.PSP_WEBHOOK_SECRET;
  const webhook = {
    ...(publicUrl ? { publicUrl } : {}),
    ...(port ? { port: Number(port) } : {}),
    ...(secret ? { secret } : {}),
  };
  return {
    options: {
      baseUrl,
      apiKey,
      signingSecret: values['signing-secret'] ?? env.PSP_SIGNING_SECRET,
      adminToken: values['admin-token'] ?? env.PSP_ADMIN_TOKEN,
      webhook,
      ...(only?.length ? { only: only as NonNullable<ContractOptions['only']> } : {}),
      ...(timeLimit === undefined ? {} : { timeLimit }),
      ...(maxRequests === undefined ? {} : { maxRequests }),
      dryRun: values['dry-run'],
    },
    json: values.json,
    junit: values.junit,
  };
}

function parseFlags(argv: string[]) {
  return parseArgs({ args: argv, strict: true, allowPositionals: false, options: parserOptions(OPTIONS) });
}

/** The `contract` subcommand: returns the exit status (0, 1 or 2). */
export async function contractCommand(
  argv: string[],
  env: Record<string, string | undefined>,
  io: { stdout: (text: string) => void; stderr: (text: string) => void; tty: boolean },
): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv, env);
  } catch (error) {
    if (!(error instanceof UsageProblem)) throw error;
    io.stderr(`psp-reference contract: ${error.message}; run with --help for usage\n`);
    return 2;
  }
  if (parsed === 'help') {
    io.stdout(`${CONTRACT_USAGE}\n`);
    return 0;
  }
  const { options, json, junit } = parsed;
  if (io.tty && !json) {
    options.onProgress = (p) => {
      if (p.type !== 'group-end') return;
      const c = p.counts;
      const parts = [
        `${c.passed} passed`,
        c.failed && `${c.failed} FAILED`,
        c.skipped && `${c.skipped} skipped`,
      ];
      if (c['needs-control']) parts.push(`${c['needs-control']} needs-control`);
      io.stderr(
        `${p.group.padEnd(12)} ${parts.filter(Boolean).join(', ')} (${(p.durationMs / 1000).toFixed(1)} s)\n`,
      );
    };
  }
  try {
    const result = await runContract(options);
    if (junit !== undefined) writeFileSync(junit, toJUnit(result));
    io.stdout(json ? `${JSON.stringify(result)}\n` : formatContractSummary(result));
    return result.ok ? 0 : 1;
  } catch (error) {
    if (error instanceof ContractUsageError) {
      io.stderr(`psp-reference contract: ${error.message}; run with --help for usage\n`);
      return 2;
    }
    io.stderr(`psp-reference contract: ${redactSecrets(String((error as Error)?.message ?? error))}\n`);
    return 1;
  }
}
