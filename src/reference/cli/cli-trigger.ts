/**
 * `psp-reference trigger <event>`: drives a running reference so that it emits one webhook event of spec 6.1, the
 * way a merchant checks a handler by hand (docs/reference.md, "Triggers"). The public API is driven with the
 * package's own `PspClient`, the bank's moves with the `/_simulator` routes. Every parameter is checked before
 * the first request (trigger-args.ts; exit 2), and the admin token before anything is created; a refused
 * request, a redirect (never followed) or an answer that is not the moved object exits 1.
 */
import { authorization } from '../../internal/wire.js';
import { PspApiError, redirectMessage } from '../../client/api-errors.js';
import { PspClient } from '../../psp-client.js';
import { SDK_CODES } from '../../schemas/errors.js';
import type { WebhookEventName } from '../../schemas/names.js';
import { OPERATIONS, type OperationName, pathOf } from '../../schemas/operations.js';
import { responseSchemas } from '../../schemas/resources.js';
import { parseOwn } from '../../schemas/issues.js';
import { parseTriggerArgs, TRIGGER_USAGE, type TriggerConfig, TriggerUsageError } from './trigger-args.js';
import { redactSecrets } from '../../internal/redact.js';

/** The trigger did not happen (exit 1): a refused request, or an answer that is not what the reference says. */
export class TriggerFailedError extends Error {
  override readonly name = 'TriggerFailedError';
  constructor(message: string) {
    super(redactSecrets(message));
  }
}

/** A request the service refused: the message names the step, the status and the error code. */
const refused = (step: string, status: number, code: string, message: string) =>
  new TriggerFailedError(`${step} refused: ${status} ${code}: ${message}`);

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

/** The status the first object has once its event was emitted. */
const FINAL_STATUS: Record<WebhookEventName, string> = {
  'payment.succeeded': 'succeeded',
  'payment.failed': 'failed',
  'payment.cancelled': 'cancelled',
  'payment.expired': 'expired',
  'payment.refunded': 'refunded',
  'payout.succeeded': 'succeeded',
  'payout.failed': 'failed',
};

/**
 * One control request with the admin token. No redirect is followed (a 3xx is an error naming where it led: the
 * token must not go elsewhere, and another server's `200 {}` is no answer of the reference).
 */
async function control(config: TriggerConfig, method: 'GET' | 'POST', path: string): Promise<unknown> {
  const step = `${method} ${path}`;
  const res = await fetch(`${config.baseUrl}${path}`, {
    method,
    headers: { authorization: authorization(config.adminToken) },
    redirect: 'manual',
  });
  if (res.status >= 300 && res.status < 400) {
    await res.body?.cancel();
    throw refused(
      step,
      res.status,
      SDK_CODES.unexpected_redirect,
      redirectMessage(res.status, res.headers.get('location')),
    );
  }
  const body = (await res.json().catch(() => undefined)) as {
    error?: { code?: unknown; message?: unknown } | undefined;
  };
  if (!res.ok) {
    const code = typeof body?.error?.code === 'string' ? body.error.code : SDK_CODES.http_error;
    const message = typeof body?.error?.message === 'string' ? body.error.message : `status ${res.status}`;
    throw refused(step, res.status, code, message);
  }
  return body;
}

/**
 * Checks the admin token with a request that changes nothing, before anything is created: a wrong token would
 * otherwise be found at the bank's move, with a payment already made and left pending. The health route answers a
 * merchant admin token too (the clock's is the whole reference's), so a parallel worker can trigger its own events.
 */
async function checkAdminToken(config: TriggerConfig): Promise<void> {
  const health = (await control(config, 'GET', '/_simulator/health')) as { status?: unknown } | undefined;
  if (health?.status !== 'ok') {
    throw new TriggerFailedError(
      `GET /_simulator/health did not answer as a reference does: is ${config.baseUrl} a psp-reference?`,
    );
  }
}

const S = responseSchemas(true);

/** A bank move of the simulator: its answer must be the object, moved to `want`. */
async function move(
  config: TriggerConfig,
  type: 'payment' | 'payout',
  id: string,
  action: string,
  want: string,
): Promise<TriggeredObject['data']> {
  const path = `/_simulator/${type}s/${id}/${action}`;
  const answer = parseOwn(type === 'payment' ? S.Payment : S.Payout, await control(config, 'POST', path));
  if (!answer.success || answer.data.id !== id) {
    throw new TriggerFailedError(`POST ${path} did not answer with the ${type}: no event was triggered`);
  }
  if (answer.data.status !== want) {
    throw new TriggerFailedError(
      `POST ${path} left the ${type} ${answer.data.status}, not ${want}: no ${type}.${want} event`,
    );
  }
  return answer.data as unknown as TriggeredObject['data'];
}

/** Runs a checked trigger against the reference. Throws {@link TriggerFailedError} when it did not happen. */
export async function runTrigger(config: TriggerConfig): Promise<TriggerResult> {
  await checkAdminToken(config);
  // No retries: a trigger is run by hand against a local reference, and a refusal is the answer to show. No log
  // either: the refusal is printed once, as the command's own line, not after a client's dump of it.
  const client = new PspClient({
    apiKey: config.apiKey,
    baseUrl: config.baseUrl,
    maxRetries: 0,
    logLevel: 'off',
  });
  // A step of the trigger is one operation of the public API; a refusal's message names its method and path.
  const api = async <T>(op: OperationName, call: () => PromiseLike<T>, id?: string): Promise<T> => {
    const step = `${OPERATIONS[op].method} ${pathOf(op, id)}`;
    try {
      return await call();
    } catch (error) {
      if (error instanceof PspApiError) throw refused(step, error.status, error.code, error.message);
      throw error;
    }
  };
  const { event, amount } = config;
  const want = FINAL_STATUS[event];

  if (event === 'payout.succeeded' || event === 'payout.failed') {
    const { items } = await api('banks.list', () => client.banks.list());
    const created = await api('payouts.create', () =>
      client.payouts.create({
        amount,
        phone: '+79990000000',
        bank_id: items[0]!.member_id,
        full_name: 'Trigger Test',
      }),
    );
    const action = event === 'payout.succeeded' ? 'succeed' : 'fail';
    const payout = await move(config, 'payout', created.payout.id, action, want);
    return { event, objects: [{ type: 'payout', data: payout }] };
  }

  const created = await api('payments.create', () =>
    client.payments.create({
      amount,
      order_id: `trigger-${event}`,
      description: `psp-reference trigger ${event}`,
      ...(config.webhookUrl ? { webhook_url: config.webhookUrl } : {}),
    }),
  );
  const id = created.payment.id;
  const get = async () => {
    const data = (await api('payments.get', () => client.payments.get(id), id)) as TriggeredObject['data'];
    if (data.status !== want) {
      throw new TriggerFailedError(`the payment is ${data.status}, not ${want}: no ${event} event`);
    }
    return { type: 'payment' as const, data };
  };
  switch (event) {
    case 'payment.cancelled':
      await api('payments.cancel', () => client.payments.cancel(id), id);
      return { event, objects: [await get()] };
    case 'payment.refunded': {
      await move(config, 'payment', id, 'succeed', 'succeeded');
      // No amount: the whole remaining balance, which is the whole amount of a payment just paid.
      const refund = await api('payments.refund', () => client.payments.refund(id, {}), id);
      return { event, objects: [await get(), { type: 'refund', data: refund as TriggeredObject['data'] }] };
    }
    default: {
      const action = {
        'payment.succeeded': 'succeed',
        'payment.failed': 'fail',
        'payment.expired': 'expire',
      }[event];
      await move(config, 'payment', id, action, want);
      return { event, objects: [await get()] };
    }
  }
}

/** The result for a person: one line per object. */
function describeTrigger(result: TriggerResult): string {
  const lines = result.objects.map(({ type, data }) => {
    const amount =
      typeof data.amount === 'number'
        ? `  amount ${data.amount}${data.currency ? ` ${String(data.currency)}` : ''}`
        : '';
    return `  ${type.padEnd(8)}${data.id}  ${data.status}${amount}`;
  });
  return `psp-reference: triggered ${result.event}\n${lines.join('\n')}\n`;
}

/** The `trigger` subcommand: returns the exit status (0, 1 or 2). */
export async function triggerCommand(
  argv: string[],
  env: Record<string, string | undefined>,
  io: { stdout: (text: string) => void; stderr: (text: string) => void },
): Promise<number> {
  let config: TriggerConfig | 'help';
  try {
    config = parseTriggerArgs(argv, env);
  } catch (error) {
    if (!(error instanceof TriggerUsageError)) throw error;
    // One line: the whole usage again would bury the one thing that was wrong.
    io.stderr(`psp-reference trigger: ${error.message}; run with --help for usage\n`);
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
    if (error instanceof TriggerFailedError) {
      io.stderr(`psp-reference trigger: ${error.message}\n`);
      return 1;
    }
    // The service could not be reached (or answered what is not the API): name the URL, never a secret.
    const cause = (error as Error & { cause?: { code?: string | undefined } | undefined }).cause?.code;
    const why = redactSecrets(`${(error as Error).message}${cause ? ` (${cause})` : ''}`);
    io.stderr(`psp-reference trigger: cannot reach the reference at ${config.baseUrl}: ${why}\n`);
    return 1;
  }
}
