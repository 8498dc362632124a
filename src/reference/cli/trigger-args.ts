/**
 * The parameters of `psp-reference trigger <event>`: parsed, and every one checked before the first request
 * (cli-trigger.ts runs it). Connection options fall back to the environment.
 */
import { parseArgs } from 'node:util';
import { isHttpUrl } from '../../schemas/common.js';
import { WEBHOOK_EVENTS, type WebhookEventName } from '../../schemas/names.js';
import { API_KEY_RE } from '../../schemas/limits.js';
import { adminTokenProblem } from '../domain/admin-token.js';
import { planPaymentOutcome, planPayoutOutcome } from '../domain/outcomes.js';
import { redactSecrets } from '../../internal/redact.js';
import { type CliOption, optionsHelp, parserOptions } from './usage.js';

const OPTIONS = {
  'base-url': { type: 'string', value: '<url>', help: "the reference's base URL (PSP_BASE_URL)" },
  'admin-token': {
    type: 'string',
    value: '<token>',
    help: 'its admin token, for /_simulator (PSP_ADMIN_TOKEN)',
  },
  'api-key': { type: 'string', value: '<key>', help: 'a test API key of the merchant (PSP_API_KEY)' },
  amount: {
    type: 'string',
    default: '1000',
    value: '<integer>',
    help: "the payment's or payout's amount in minor units, kopecks (default 1000: 10.00 RUB)",
  },
  'webhook-url': {
    type: 'string',
    value: '<url>',
    help: "set as the created payment's webhook_url (payment events only)",
  },
  json: { type: 'boolean', default: false, help: 'print one JSON object { event, objects: [...] }' },
  help: { type: 'boolean', short: 'h', default: false, help: 'show this help' },
} as const satisfies Record<string, CliOption>;

/** The `psp-reference trigger --help` text. */
export const TRIGGER_USAGE = `Usage: psp-reference trigger <event> [options]

Makes a running reference emit one webhook event: creates what the event needs through the public API
(a payment, then the bank's move; a refund of the whole amount; a payout) and prints the objects it made.

Events: ${WEBHOOK_EVENTS.join(', ')}

Options (each of the first three may come from the environment instead):
${optionsHelp(OPTIONS)}

Exit status: 0 the event was triggered; 1 the service refused a request (its error code is printed);
2 a bad or missing parameter.`;

/** A trigger's parameters, all checked. */
export interface TriggerConfig {
  event: WebhookEventName;
  baseUrl: string;
  adminToken: string;
  apiKey: string;
  amount: number;
  webhookUrl?: string | undefined;
  json: boolean;
}

/** A value the user gave, for a message: quoted, cut to `max` characters, with any secret in it masked. */
const shown = (text: string, max: number) => JSON.stringify(redactSecrets(text).slice(0, max));

/** A bad or missing parameter: exit 2. Its message never holds a secret's value. */
export class TriggerUsageError extends Error {
  override readonly name = 'TriggerUsageError';
}

/**
 * Parses and checks `trigger`'s argv (after the word `trigger`) with `env` as the fallback for the connection
 * options. Returns `'help'` for `--help`. Throws {@link TriggerUsageError}.
 */
export function parseTriggerArgs(
  argv: string[],
  env: Record<string, string | undefined>,
): TriggerConfig | 'help' {
  const { values, positionals } = parseFlags(argv);
  if (values.help) return 'help';
  const valid = `valid events: ${WEBHOOK_EVENTS.join(', ')}`;
  if (positionals.length === 0) throw new TriggerUsageError(`missing the event to trigger; ${valid}`);
  if (positionals.length > 1) {
    throw new TriggerUsageError(
      `one event at a time, got ${positionals.length} (${positionals.map((p) => JSON.stringify(redactSecrets(p))).join(', ')})`,
    );
  }
  const event = positionals[0]!;
  if (!(WEBHOOK_EVENTS as readonly string[]).includes(event)) {
    throw new TriggerUsageError(`unknown event ${shown(event, 64)}; ${valid}`);
  }
  const option = (flag: 'base-url' | 'admin-token' | 'api-key', variable: string): string => {
    const value = values[flag] ?? env[variable];
    if (value === undefined || value.trim() === '') {
      throw new TriggerUsageError(`missing --${flag} (or the environment variable ${variable})`);
    }
    return value.trim();
  };
  const base = option('base-url', 'PSP_BASE_URL');
  const baseUrl = isHttpUrl(base) ? new URL(base) : undefined;
  if (!baseUrl) throw new TriggerUsageError(`--base-url must be an http(s) URL, got ${shown(base, 200)}`);
  // Shown nowhere, and never sent: fetch refuses such a URL, and its message would echo the password whole.
  if (baseUrl.username || baseUrl.password)
    throw new TriggerUsageError('--base-url must not carry a user or password (user:pass@); it is not shown');
  const adminToken = option('admin-token', 'PSP_ADMIN_TOKEN');
  const tokenProblem = adminTokenProblem(adminToken);
  if (tokenProblem) throw new TriggerUsageError(`--admin-token ${tokenProblem}`);
  const apiKey = option('api-key', 'PSP_API_KEY');
  if (!API_KEY_RE.test(apiKey)) {
    throw new TriggerUsageError(
      '--api-key must be an API key, sk_test_<6 chars>_<secret> (its value is not shown)',
    );
  }
  const amount = /^\d{1,15}$/.test(values.amount) ? Number(values.amount) : Number.NaN;
  if (!Number.isSafeInteger(amount) || amount < 1) throw new TriggerUsageError(amountProblem(values.amount));
  // The test-mode rule refuses these at creation: no later move, so no event, would follow.
  const plan = event.startsWith('payout.') ? planPayoutOutcome(amount) : planPaymentOutcome(amount);
  if (plan === 'refused') {
    throw new TriggerUsageError(
      `--amount ${amount} ends in 902, which test mode refuses at creation; pick another amount`,
    );
  }
  const webhookUrl = values['webhook-url'];
  if (webhookUrl !== undefined && !event.startsWith('payment.')) {
    throw new TriggerUsageError(
      "--webhook-url is a payment's webhook_url: it applies to payment events only",
    );
  }
  if (webhookUrl !== undefined && !isHttpUrl(webhookUrl)) {
    throw new TriggerUsageError(`--webhook-url must be an http(s) URL, got ${shown(webhookUrl, 200)}`);
  }
  return {
    event: event as WebhookEventName,
    baseUrl: baseUrl.href.replace(/\/+$/, ''),
    adminToken,
    apiKey,
    amount,
    ...(webhookUrl ? { webhookUrl } : {}),
    json: values.json,
  };
}

/** The one wording of a bad `--amount`, whichever way it was bad: the unit is the API's, minor units. */
const amountProblem = (value: string) =>
  `--amount must be a positive whole number of minor units (kopecks: 1000 is 10.00 RUB), got ${shown(value, 32)}`;

function parseFlags(argv: string[]) {
  try {
    return parseArgs({ args: argv, strict: true, allowPositionals: true, options: parserOptions(OPTIONS) });
  } catch (error) {
    throw new TriggerUsageError(flagProblem(argv) ?? redactSecrets((error as Error).message));
  }
}

/**
 * What is wrong with the flags, in our words: node's own ("argument is ambiguous", a suggestion with a quote left
 * open) speak of parseArgs, not of this command. Read from parseArgs' lenient tokens, which keep every flag.
 */
function flagProblem(argv: string[]): string | undefined {
  const { tokens } = parseArgs({
    args: argv,
    strict: false,
    allowPositionals: true,
    options: parserOptions(OPTIONS),
    tokens: true,
  });
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const flag = token.rawName;
    const option = Object.hasOwn(OPTIONS, token.name)
      ? OPTIONS[token.name as keyof typeof OPTIONS]
      : undefined;
    // A secret pasted as a flag is cut to its prefix by `shown`.
    if (!option) return `unknown option ${shown(flag, 64)}`;
    if (option.type === 'boolean' && token.value !== undefined) return `${flag} takes no value`;
    if (option.type === 'boolean') continue;
    if (token.value === undefined) return `${flag} needs a value`;
    if (token.inlineValue || !token.value.startsWith('-')) continue;
    // `--amount -5`: parseArgs cannot tell a negative number from a forgotten value.
    if (token.name === 'amount' && /^-\d/.test(token.value)) return amountProblem(token.value);
    return `${flag} needs a value (got the flag ${shown(token.value, 32)}; a value that starts with "-" is written ${flag}=<value>)`;
  }
  return undefined;
}
