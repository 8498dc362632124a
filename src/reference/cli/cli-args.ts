import { authorization } from '../../internal/wire.js';
import type { WebhookChaosInput } from '../domain/cabinet-inputs.js';
import { WebhookChaos } from '../webhooks/chaos.js';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { checkFixedCredentials, type FixedCredentials } from '../domain/credentials.js';
import { type FaultRuleInput, parseFaultRules } from '../faults/index.js';
import { redactSecrets } from '../../internal/redact.js';
import { hostNames } from '../http/pay-page-host.js';
import { PUBLIC_PREFIX, pathOf } from '../../schemas/operations.js';
import type { RunningReference } from '../start.js';
import { type CliOption, optionsHelp, parserOptions } from './usage.js';

/** What the command line asked for, after validation. */
export interface CliConfig extends FixedCredentials {
  host: string;
  port: number;
  clock: 'real' | 'manual';
  publicUrl?: string | undefined;
  /** `--public-host a,b`: host names the buyer's page answers to beside IP addresses, localhost and `--host`. */
  publicHost?: string[] | undefined;
  trustProxy: boolean;
  /** `--allow-private-webhooks`: webhooks may go to private targets though `--host` is beyond loopback. */
  allowPrivateWebhookTargets?: true | undefined;
  /** `--state <file>`: the snapshot file to start from and save to. */
  state?: string | undefined;
  faults?: FaultRuleInput[] | undefined;
  seed?: number | undefined;
  /** `--webhook-chaos duplicate=0.3,reorder=0.2,delay=0-30s,seed=42`, as `PUT /_simulator/webhook-chaos` takes it. */
  webhookChaos?: WebhookChaosInput | undefined;
  json: boolean;
  quiet: boolean;
  help: boolean;
  version: boolean;
}

/**
 * A command-line mistake: the CLI prints it with the usage and exits 2. Its message quotes what was typed (a value,
 * an unknown option, a stray argument), so any secret in it is masked: a key pasted one place too far goes to stderr.
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  constructor(message: string) {
    super(redactSecrets(message));
  }
}

const OPTIONS = {
  host: {
    type: 'string',
    default: '127.0.0.1',
    value: '<address>',
    help: 'address to bind (default 127.0.0.1; 0.0.0.0 for every interface)',
  },
  port: {
    type: 'string',
    default: '4010',
    value: '<number>',
    help: 'port to bind, 0 for a free one (default 4010)',
  },
  clock: {
    type: 'string',
    default: 'real',
    value: '<real|manual>',
    help: 'service clock: the wall clock, or one that stands still until POST /_simulator/clock/advance moves it (default real)',
  },
  'public-url': {
    type: 'string',
    value: '<url>',
    help: 'origin to put in payment_url (default: the origin each request used)',
  },
  'public-host': {
    type: 'string',
    value: '<name,...>',
    help: "host names the buyer's page answers to beside IP addresses, localhost, --host's and --public-url's (a container's service name, say); a request for another Host is refused with 421, so a DNS-rebound page cannot pay",
  },
  'trust-proxy': {
    type: 'boolean',
    default: false,
    help: 'take the client address from X-Forwarded-For for the IP allow-list',
  },
  'allow-private-webhooks': {
    type: 'boolean',
    default: false,
    help: 'let webhooks go to private and loopback addresses when --host is not a loopback address (on loopback they always may)',
  },
  state: {
    type: 'string',
    value: '<file>',
    help: 'start from this snapshot file when it exists, and write the whole state there within about a second of each change and on SIGINT/SIGTERM (owner-only: it holds the keys and secrets)',
  },
  'webhook-chaos': {
    type: 'string',
    value: '<spec>',
    help: 'deliver webhooks as a real network might: duplicate=<0..1>,reorder=<0..1>,delay=<min>-<max>s,seed=<n> (each part optional; a delay waits on the service clock); each such delivery is marked chaos in the delivery log',
  },
  faults: {
    type: 'string',
    value: '<file>',
    help: 'fault rules to play on the public API from the start (a JSON array, as POST /_simulator/faults takes them)',
  },
  seed: {
    type: 'string',
    value: '<integer>',
    help: "makes the fault rules' probability draws repeatable (default random)",
  },
  'api-key': {
    type: 'string',
    value: '<sk_test_...>',
    help: "the startup merchant's test key instead of a new one (PSP_REFERENCE_API_KEY): sk_test_<6 letters or digits>_<at least 24 random characters>",
  },
  'admin-token': {
    type: 'string',
    value: '<token>',
    help: 'the Bearer token of /_cabinet and /_simulator instead of a new one (PSP_REFERENCE_ADMIN_TOKEN): 32 to 256 random visible characters',
  },
  'webhook-secret': {
    type: 'string',
    value: '<whs_...>',
    help: 'the whs_ secret of every webhook endpoint made on the startup shop (PSP_REFERENCE_WEBHOOK_SECRET): whs_<at least 24 random characters>. Weak values are refused; none is ever echoed',
  },
  json: {
    type: 'boolean',
    default: false,
    help: 'print the startup facts as one JSON line on stdout; logs go to stderr',
  },
  quiet: { type: 'boolean', short: 'q', default: false, help: 'no request or service log lines on stderr' },
  version: { type: 'boolean', short: 'v', default: false, help: "print the package's version and exit" },
  help: { type: 'boolean', short: 'h', default: false, help: 'show this help' },
} as const satisfies Record<string, CliOption>;

/** The `psp-reference --help` text. */
export const USAGE = `Usage: psp-reference [options]
       psp-reference trigger <event> [options]   (psp-reference trigger --help)
       psp-reference shadow --upstream <url>    (psp-reference shadow --help)
       psp-reference readiness [options]         (psp-reference readiness --help)

Starts the in-memory reference of the Payment Service Public API: one merchant with a test API key,
state kept in memory only.

Options:
${optionsHelp(OPTIONS)}

Stop it with Ctrl+C (SIGINT) or SIGTERM.`;

/**
 * Parses and validates argv (without the node and script paths); `env` supplies the fixed credentials a flag does
 * not (`PSP_REFERENCE_API_KEY`, `PSP_REFERENCE_ADMIN_TOKEN`, `PSP_REFERENCE_WEBHOOK_SECRET`). Throws {@link UsageError}.
 */
export function parseCliArgs(
  argv: string[],
  env: Readonly<Record<string, string | undefined>> = {},
): CliConfig {
  const { host, port, clock, state, seed, ...values } = parseFlags(argv);
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) {
    throw new UsageError(`--port must be an integer from 0 to 65535, got '${port}'`);
  }
  if (clock !== 'real' && clock !== 'manual') {
    throw new UsageError(`--clock must be 'real' or 'manual', got '${clock}'`);
  }
  if (host === '') throw new UsageError('--host must not be empty');
  let publicUrl: string | undefined;
  if (values['public-url'] !== undefined) {
    try {
      const url = new URL(values['public-url']);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
      publicUrl = url.origin;
    } catch {
      throw new UsageError(`--public-url must be an http(s) URL, got '${values['public-url']}'`);
    }
  }
  let publicHost: string[] | undefined;
  if (values['public-host'] !== undefined) {
    try {
      publicHost = hostNames(values['public-host'].split(','));
    } catch {
      throw new UsageError(
        `--public-host must be host names separated by commas (no scheme, port or path), got '${values['public-host']}'`,
      );
    }
  }
  if (state === '') throw new UsageError('--state must name a file');
  if (seed !== undefined && (!/^-?\d+$/.test(seed) || !Number.isSafeInteger(Number(seed)))) {
    throw new UsageError(`--seed must be an integer, got '${seed}'`);
  }
  return {
    ...fixedCredentials(values, env),
    ...(state === undefined ? {} : { state }),
    host,
    port: Number(port),
    clock,
    publicUrl,
    ...(publicHost === undefined ? {} : { publicHost }),
    trustProxy: values['trust-proxy'],
    ...(values['allow-private-webhooks'] ? { allowPrivateWebhookTargets: true as const } : {}),
    ...(values.faults === undefined ? {} : { faults: readFaults(values.faults) }),
    ...(seed === undefined ? {} : { seed: Number(seed) }),
    ...(values['webhook-chaos'] === undefined ? {} : { webhookChaos: chaosFlag(values['webhook-chaos']) }),
    json: values.json,
    quiet: values.quiet,
    help: values.help,
    version: values.version,
  };
}

function parseFlags(argv: string[]) {
  try {
    return parseArgs({ args: argv, strict: true, allowPositionals: false, options: parserOptions(OPTIONS) })
      .values;
  } catch (error) {
    // parseArgs' messages name the flag ("Unknown option '--prot'"); keep them, drop Node's error code.
    throw new UsageError((error as Error).message);
  }
}

// Own variables, not the client's PSP_API_KEY: a shell that points the SDK at a real sandbox must not hand that key
// to a reference, which prints it in its startup facts.
const CREDENTIAL_SOURCES = {
  apiKey: ['api-key', 'PSP_REFERENCE_API_KEY'],
  adminToken: ['admin-token', 'PSP_REFERENCE_ADMIN_TOKEN'],
  webhookSecret: ['webhook-secret', 'PSP_REFERENCE_WEBHOOK_SECRET'],
} as const;

/** The fixed credentials, each from its flag or else its variable, checked; a problem names where it came from. */
function fixedCredentials(
  values: Partial<Record<'api-key' | 'admin-token' | 'webhook-secret', string>>,
  env: Readonly<Record<string, string | undefined>>,
): FixedCredentials {
  const fixed: FixedCredentials = {};
  const names = { apiKey: '', adminToken: '', webhookSecret: '' };
  type Flag = (typeof CREDENTIAL_SOURCES)[keyof FixedCredentials][0];
  for (const [key, [flag, variable]] of Object.entries(CREDENTIAL_SOURCES) as Array<
    [keyof FixedCredentials, readonly [Flag, string]]
  >) {
    const value = values[flag] ?? (env[variable] || undefined);
    names[key] = values[flag] === undefined ? variable : `--${flag}`;
    if (value !== undefined) fixed[key] = value;
  }
  try {
    checkFixedCredentials(fixed, names);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return fixed;
}

/**
 * `--webhook-chaos`'s text as the JSON `PUT /_simulator/webhook-chaos` takes, checked whole: a UsageError naming the
 * part otherwise.
 *
 * @example chaosFlag('duplicate=0.3,delay=0-30s,seed=42') // { duplicate: 0.3, delay: { min_seconds: 0, max_seconds: 30 }, seed: 42 }
 */
export function chaosFlag(text: string): WebhookChaosInput {
  const out: Record<string, unknown> = {};
  for (const part of text.split(',').filter(Boolean)) {
    const [name = '', value = ''] = part.split('=', 2).map((x) => x.trim());
    if (name === 'delay') {
      const m = /^(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)(ms|s)?$/.exec(value);
      if (!m)
        throw new UsageError(
          `--webhook-chaos delay must be <min>-<max>s (e.g. 0-30s), got '${value.slice(0, 40)}'`,
        );
      const unit = m[3] === 'ms' ? 1000 : 1;
      out.delay = { min_seconds: Number(m[1]) / unit, max_seconds: Number(m[2]) / unit };
    } else if (name === 'duplicate' || name === 'reorder' || name === 'seed') {
      if (!/^\d+(\.\d+)?$/.test(value))
        throw new UsageError(`--webhook-chaos ${name} must be a number, got '${value.slice(0, 40)}'`);
      out[name] = Number(value);
    } else
      throw new UsageError(
        `--webhook-chaos takes duplicate, reorder, delay and seed, got '${name.slice(0, 40)}'`,
      );
  }
  try {
    new WebhookChaos().set(out);
  } catch (error) {
    throw new UsageError(`--webhook-chaos: ${(error as Error).message}`);
  }
  return out as WebhookChaosInput;
}

/** The rules of a `--faults` file, checked whole: a file that cannot be read or holds a bad rule is a UsageError. */
function readFaults(file: string): FaultRuleInput[] {
  try {
    return parseFaultRules(JSON.parse(readFileSync(file, 'utf8')));
  } catch (error) {
    const why =
      error instanceof SyntaxError
        ? `is not JSON (${error.message})`
        : error instanceof TypeError
          ? error.message
          : `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
    throw new UsageError(`--faults ${file}: ${why}`);
  }
}

/** The keys of the startup line (the reference's contract), in its order. */
export const STARTUP_KEYS = [
  'base_url',
  'pay_url',
  'admin_token',
  'merchant_id',
  'shop_id',
  'terminal_id',
  'api_key',
  'signing_secret',
] as const;

/** The startup facts of the contract, in its key order. */
export function startupJson(running: RunningReference): string {
  return JSON.stringify(running, [...STARTUP_KEYS]);
}

/** The banner a person reads when `--json` is absent. */
export function banner(running: RunningReference, clock: 'real' | 'manual'): string {
  const row = (label: string, value: string) => `  ${label.padEnd(16)}${value}`;
  return [
    'psp-reference: the in-memory reference of the Payment Service Public API',
    '',
    row('API base URL', running.base_url),
    row("Buyer's page", `${running.pay_url}/{payment_id}`),
    row('Clock', clock === 'manual' ? 'manual (advance with POST /_simulator/clock/advance)' : 'real'),
    '',
    row('API key', running.api_key),
    row('Signing secret', running.signing_secret),
    row('Admin token', `${running.admin_token}  (Bearer token for /_cabinet and /_simulator)`),
    row('Merchant', running.merchant_id),
    row('Shop', running.shop_id),
    row('Terminal', running.terminal_id),
    '',
    `Try: curl -H 'Authorization: ${authorization(running.api_key)}' ${running.base_url}${PUBLIC_PREFIX}${pathOf('banks.list')}`,
    'Everything lives in memory and is gone when it stops. Press Ctrl+C to stop.',
    '',
  ].join('\n');
}
