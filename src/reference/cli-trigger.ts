/**
 * `psp-reference trigger <event>`: drives a running reference so that it emits one webhook event of spec 6.1, the
 * way a merchant checks a handler by hand (docs/reference.md, "Triggers"). The public API is driven with the
 * package's own `PspClient`, the bank's moves with the `/_simulator` routes. Every parameter is checked before
 * the first request (exit 2); a refused request exits 1 with the service's error code.
 */
import { parseArgs } from 'node:util';
import { PspClient } from '../client/client.js';
import { PspApiError } from '../client/api-errors.js';
import { WEBHOOK_EVENTS, type WebhookEventName } from '../schemas/events.js';
import { httpUrl } from '../schemas/common.js';
import { redactSecrets } from './http/errors.js';
import { planPaymentOutcome, planPayoutOutcome } from './domain/outcomes.js';

/** The `psp-reference trigger --help` text. */
export const TRIGGER_USAGE = `Usage: psp-reference trigger <event> [options]

Makes a running reference emit one webhook event: creates what the event needs through the public API
(a payment, then the bank's move; a refund of the whole amount; a payout) and prints the objects it made.

Events: ${WEBHOOK_EVENTS.join(', ')}

Options (each of the first three may come from the environment instead):
  --base-url <url>      the reference's base URL             (PSP_BASE_URL)
  --admin-token <token> its admin token, for /_simulator     (PSP_ADMIN_TOKEN)
  --api-key <key>       a test API key of the merchant       (PSP_API_KEY)
  --amount <integer>    the payment's or payout's amount in minor units (default 1000)
  --webhook-url <url>   set as the created payment's webhook_url (payment events only)
  --json                print one JSON object { event, objects: [...] }
  -h, --help            show this help

Exit status: 0 the event was triggered; 1 the service refused a request (its error code is printed);
2 a bad or missing parameter.`;

/** A trigger's parameters, all checked. */
export interface TriggerConfig {
  event: WebhookEventName;
  baseUrl: string;
  adminToken: string;
  apiKey: string;
  amount: number;
  webhookUrl?: string;
  json: boolean;
}

/** A bad or missing parameter: exit 2. Its message never holds a secret's value. */
export class TriggerUsageError extends Error {
  override readonly name = 'TriggerUsageError';
}

/** A request the service refused (exit 1), with its status and error code. */
export class TriggerRefusedError extends Error {
  override readonly name = 'TriggerRefusedError';
  constructor(
    readonly step: string,
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(`${step} refused: ${status} ${code}: ${redactSecrets(message)}`);
  }
}

const KEY_RE = /^sk_(test|live)_[A-Za-z0-9]{6}_\S+$/;

/**
 * Parses and checks `trigger`'s argv (after the word `trigger`) with `env` as the fallback for the connection
 * options. Returns `'help'` for `--help`. Throws {@link TriggerUsageError}.
 */
export function parseTriggerArgs(
  argv: string[],
  env: Record<string, string | undefined>,
): TriggerConfig | 'help' {
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: {
        'base-url': { type: 'string' },
        'admin-token': { type: 'string' },
        'api-key': { type: 'string' },
        amount: { type: 'string' },
        'webhook-url': { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    // parseArgs names the flag, never a value of ours; a secret pasted as an unknown flag is cut to its prefix.
    throw new TriggerUsageError(redactSecrets((error as Error).message));
  }
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
    throw new TriggerUsageError(
      `unknown event ${JSON.stringify(redactSecrets(event).slice(0, 64))}; ${valid}`,
    );
  }
  const option = (flag: string, variable: string): string => {
    const value = (values[flag] as string | undefined) ?? env[variable];
    if (value === undefined || value.trim() === '') {
      throw new TriggerUsageError(`missing --${flag} (or the environment variable ${variable})`);
    }
    return value.trim();
  };
  const base = option('base-url', 'PSP_BASE_URL');
  const baseUrl = httpUrl(base);
  if (!baseUrl)
    throw new TriggerUsageError(
      `--base-url must be an http(s) URL, got ${JSON.stringify(redactSecrets(base).slice(0, 200))}`,
    );
  const adminToken = option('admin-token', 'PSP_ADMIN_TOKEN');
  if (/\s/.test(adminToken)) throw new TriggerUsageError('--admin-token must not contain white space');
  const apiKey = option('api-key', 'PSP_API_KEY');
  if (!KEY_RE.test(apiKey)) {
    throw new TriggerUsageError(
      '--api-key must be an API key, sk_test_<6 chars>_<secret> (its value is not shown)',
    );
  }
  const amountText = (values.amount as string | undefined) ?? '1000';
  const amount = /^\d{1,15}$/.test(amountText) ? Number(amountText) : Number.NaN;
  if (!Number.isSafeInteger(amount) || amount < 1) {
    throw new TriggerUsageError(
      `--amount must be a whole number of minor units of at least 1, got ${JSON.stringify(amountText.slice(0, 32))}`,
    );
  }
  // The test-mode rule refuses these at creation: no later move, so no event, would follow.
  const plan = event.startsWith('payout.') ? planPayoutOutcome(amount) : planPaymentOutcome(amount);
  if (plan === 'refused') {
    throw new TriggerUsageError(
      `--amount ${amount} ends in 902, which test mode refuses at creation; pick another amount`,
    );
  }
  let webhookUrl: string | undefined;
  if (values['webhook-url'] !== undefined) {
    const text = String(values['webhook-url']);
    if (!event.startsWith('payment.')) {
      throw new TriggerUsageError(
        "--webhook-url is a payment's webhook_url: it applies to payment events only",
      );
    }
    if (!httpUrl(text))
      throw new TriggerUsageError(
        `--webhook-url must be an http(s) URL, got ${JSON.stringify(redactSecrets(text).slice(0, 200))}`,
      );
    webhookUrl = text;
  }
  return {
    event: event as WebhookEventName,
    baseUrl: baseUrl.href.replace(/\/+$/, ''),
    adminToken,
    apiKey,
    amount,
    ...(webhookUrl ? { webhookUrl } : {}),
    json: values.json === true,
  };
}

/** One object the trigger made, as the service answered it. */
export interface TriggeredObject {
  type: 'payment' | 'refund' | 'payout';
  data: Record<string, unknown> & { id: string; status: string };
}

/** What a trigger made: the `--json` output. */
export interface TriggerResult {
  event: WebhookEventName;
  objects: TriggeredObject[];
}

/** Runs a checked trigger against the reference. Throws {@link TriggerRefusedError} when a request is refused. */
export async function runTrigger(config: TriggerConfig): Promise<TriggerResult> {
  // No retries: a trigger is run by hand against a local reference, and a refusal is the answer to show.
  const client = new PspClient({ apiKey: config.apiKey, baseUrl: config.baseUrl, maxRetries: 0 });
  const api = async <T>(step: string, call: () => PromiseLike<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      if (error instanceof PspApiError)
        throw new TriggerRefusedError(step, error.status, error.code, error.message);
      throw error;
    }
  };
  const simulator = async (path: string) => {
    const res = await fetch(`${config.baseUrl}/_simulator${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${config.adminToken}` },
    });
    const body = (await res.json().catch(() => ({}))) as Record<string, any>;
    if (!res.ok) {
      const code = typeof body.error?.code === 'string' ? body.error.code : 'http_error';
      const message = typeof body.error?.message === 'string' ? body.error.message : `status ${res.status}`;
      throw new TriggerRefusedError(`POST /_simulator${path}`, res.status, code, message);
    }
    return body as TriggeredObject['data'];
  };
  const { event, amount } = config;

  if (event === 'payout.succeeded' || event === 'payout.failed') {
    const { items } = await api('GET /banks/sbp', () => client.banks.list());
    const created = await api('POST /payouts', () =>
      client.payouts.create({
        amount,
        phone: '+79990000000',
        bank_id: items[0]!.member_id,
        full_name: 'Trigger Test',
      }),
    );
    const move = event === 'payout.succeeded' ? 'succeed' : 'fail';
    const payout = await simulator(`/payouts/${created.payout.id}/${move}`);
    return { event, objects: [{ type: 'payout', data: payout }] };
  }

  const created = await api('POST /payments', () =>
    client.payments.create({
      amount,
      order_id: `trigger-${event}`,
      description: `psp-reference trigger ${event}`,
      ...(config.webhookUrl ? { webhook_url: config.webhookUrl } : {}),
    }),
  );
  const id = created.payment.id;
  const get = async () => ({
    type: 'payment' as const,
    data: (await api(`GET /payments/${id}`, () => client.payments.get(id))) as TriggeredObject['data'],
  });
  switch (event) {
    case 'payment.cancelled':
      await api(`POST /payments/${id}/cancel`, () => client.payments.cancel(id));
      return { event, objects: [await get()] };
    case 'payment.refunded': {
      await simulator(`/payments/${id}/succeed`);
      // No amount: the whole remaining balance, which is the whole amount of a payment just paid.
      const refund = await api(`POST /payments/${id}/refund`, () => client.payments.refund(id, {}));
      return { event, objects: [await get(), { type: 'refund', data: refund as TriggeredObject['data'] }] };
    }
    default: {
      const move = { 'payment.succeeded': 'succeed', 'payment.failed': 'fail', 'payment.expired': 'expire' }[
        event
      ];
      await simulator(`/payments/${id}/${move}`);
      return { event, objects: [await get()] };
    }
  }
}

/** The result for a person: one line per object. */
export function describeTrigger(result: TriggerResult): string {
  const lines = result.objects.map(({ type, data }) => {
    const amount =
      typeof data.amount === 'number'
        ? `  amount ${data.amount}${data.currency ? ` ${String(data.currency)}` : ''}`
        : '';
    return `  ${type.padEnd(8)}${data.id}  ${data.status}${amount}`;
  });
  return `psp-reference: triggered ${result.event}\n${lines.join('\n')}\n`;
}

/** Writes for the CLI: stdout and stderr. */
export interface TriggerIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** The `trigger` subcommand: returns the exit status (0, 1 or 2). */
export async function triggerCommand(
  argv: string[],
  env: Record<string, string | undefined>,
  io: TriggerIo,
): Promise<number> {
  let config: TriggerConfig | 'help';
  try {
    config = parseTriggerArgs(argv, env);
  } catch (error) {
    if (!(error instanceof TriggerUsageError)) throw error;
    io.stderr(`psp-reference trigger: ${error.message}\n\n${TRIGGER_USAGE}\n`);
    return 2;
  }
  if (config === 'help') {
    io.stdout(`${TRIGGER_USAGE}\n`);
    return 0;
  }
  try {
    const result = await runTrigger(config);
    io.stdout(config.json ? `${JSON.stringify(result)}\n` : describeTrigger(result));
    return 0;
  } catch (error) {
    if (error instanceof TriggerRefusedError) {
      io.stderr(`psp-reference trigger: ${error.message}\n`);
      return 1;
    }
    // The service could not be reached (or answered what is not the API): name the URL, never a secret.
    const cause = (error as Error & { cause?: { code?: string } }).cause?.code;
    const why = redactSecrets(`${(error as Error).message}${cause ? ` (${cause})` : ''}`);
    io.stderr(`psp-reference trigger: cannot reach the reference at ${config.baseUrl}: ${why}\n`);
    return 1;
  }
}
