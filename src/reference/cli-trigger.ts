/**
 * `psp-reference trigger <event>`: drives a running reference so that it emits one webhook event of spec 6.1, the
 * way a merchant checks a handler by hand (docs/reference.md, "Triggers"). The public API is driven with the
 * package's own `PspClient`, the bank's moves with the `/_simulator` routes. Every parameter is checked before
 * the first request (adapters/trigger-args.ts; exit 2); a refused request exits 1 with the service's error code.
 */
import { PspApiError } from '../client/api-errors.js';
import { PspClient } from '../client/client.js';
import type { WebhookEventName } from '../schemas/events.js';
import {
  parseTriggerArgs,
  TRIGGER_USAGE,
  type TriggerConfig,
  TriggerUsageError,
} from './adapters/trigger-args.js';
import { redactSecrets } from '../internal/redact.js';

/** A request the service refused (exit 1): the message names the step, the status and the error code. */
class TriggerRefusedError extends Error {
  override readonly name = 'TriggerRefusedError';
  constructor(step: string, status: number, code: string, message: string) {
    super(`${step} refused: ${status} ${code}: ${redactSecrets(message)}`);
  }
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
async function runTrigger(config: TriggerConfig): Promise<TriggerResult> {
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
