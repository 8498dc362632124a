/**
 * The end-to-end demo as a function, so `npm start` and a test run the same code: reference up, webhook endpoint
 * registered, payment created and paid, webhook verified, SSE events shown, partial refund, SBP payout, summary.
 */
import { PspClient } from '../../src/index.js';
import { DEFAULTS } from '../../src/reference/domain/defaults.js';
import { startReference } from '../../src/reference/index.js';
import { verifyWebhook } from '../../src/webhooks/index.js';
import type { DemoArgs } from './args.js';
import { payAsBuyer } from './buyer.js';
import { otherMachineUrls } from './host.js';
import { Inbox, startReceiver } from './receiver.js';
import { duration, money, type Ui } from './ui.js';

export interface DemoSummary {
  paymentId: string;
  paymentStatus: string;
  amount: number;
  refunded: number;
  payoutId: string;
  payoutStatus: string;
  payoutAmount: number;
  bank: string;
  webhooksVerified: number;
  webhooksRejected: number;
  sseEvents: number;
  ms: number;
}

interface ReceivedWebhook {
  event: string;
  id: string;
  objectId: string;
}

const WAIT_MS = 15_000;

/**
 * Runs the demo, printing through `ui`. `signal` (Ctrl-C in `npm start`) ends any wait early; everything the demo
 * started is closed before it returns or throws.
 */
export async function runDemo(args: DemoArgs, ui: Ui, signal?: AbortSignal): Promise<DemoSummary> {
  const started = performance.now();
  const cleanups: Array<() => Promise<void> | void> = [];
  try {
    ui.title('psp-sdk demo: a payment, a webhook, a refund and an SBP payout against the embedded reference');

    ui.step('Start the reference service in-process');
    const ref = await startReference({ host: args.host, port: args.port, clock: args.clock });
    cleanups.push(() => ref.close());
    ui.fact('base_url', ref.base_url);
    ui.fact('clock', args.clock === 'manual' ? 'manual (advanced by the demo)' : 'real');
    ui.fact('api_key', `${ref.api_key.slice(0, 15)}… ${ui.dim('(test mode)')}`);

    ui.step('Register a webhook endpoint (cabinet API) and start the receiver');
    const webhooks = new Inbox<ReceivedWebhook>();
    let secret = '';
    let rejected = 0;
    const receiver = await startReceiver((raw, headers) => {
      try {
        const event = verifyWebhook(raw, headers, secret);
        const data = event.data as { id: string; status?: string };
        webhooks.push({ event: event.event, id: event.id, objectId: data.id });
        ui.line(
          `   ${ui.magenta('webhook')} ${event.event.padEnd(22)} ${ui.green('signature ok')} ${ui.dim(event.id)}`,
        );
        return 200;
      } catch (err) {
        rejected += 1;
        ui.warn(`webhook rejected: ${(err as Error).message}`);
        return 400;
      }
    });
    cleanups.push(() => receiver.close());
    const endpoint = await cabinet<{ id: string; secret: string }>(
      ref.base_url,
      ref.admin_token,
      `/_cabinet/shops/${ref.shop_id}/webhook-endpoints`,
      { url: receiver.url },
    );
    secret = endpoint.secret;
    ui.fact('receiver', receiver.url);
    ui.fact('endpoint', `${endpoint.id} ${ui.dim('(signature v2, secret whs_…)')}`);

    // The stream is best-effort and has no "connected" callback; the demo wants to show payment.created, so it
    // notices when the stream's response arrives (the server has registered it by then) and only then pays.
    let streamOpen: () => void = () => {};
    const streamOpened = new Promise<void>((resolve) => {
      streamOpen = resolve;
    });
    const client = new PspClient({
      apiKey: ref.api_key,
      baseUrl: ref.base_url,
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        if (String(input instanceof Request ? input.url : input).endsWith('/events') && res.ok) streamOpen();
        return res;
      },
    });

    ui.step('Listen to the realtime event stream (SSE)');
    const sse = client.events.stream();
    let sseCount = 0;
    const sseDone = (async () => {
      for await (const e of sse) {
        sseCount += 1;
        const p = e.payload as { id?: string; status?: string; amount?: number };
        const detail = [p.status, p.amount !== undefined ? money(p.amount) : undefined]
          .filter(Boolean)
          .join(', ');
        ui.line(`   ${ui.cyan('sse')}     ${e.kind.padEnd(22)} ${detail} ${ui.dim(p.id ?? '')}`);
      }
    })().catch((err: unknown) => ui.warn(`event stream ended: ${(err as Error).message}`));
    cleanups.push(async () => {
      sse.close();
      await sseDone;
    });
    await Promise.race([streamOpened, new Promise((r) => setTimeout(r, 2_000).unref())]);
    ui.ok('connected to GET /api/v1/public/events');

    ui.step('Create a payment');
    const amount = 150_000;
    const created = await client.payments.create({
      amount,
      currency: 'RUB',
      order_id: `demo-${Date.now()}`,
      description: 'Demo order: 1 × espresso machine',
    });
    const payment = created.payment;
    ui.fact('payment', `${payment.id} ${ui.dim(payment.status)}`);
    ui.fact('amount', money(payment.amount, payment.currency));
    ui.fact('payment_url', ui.bold(created.payment_url));
    if (created.simulator)
      ui.fact('planned', `${created.simulator} ${ui.dim('(test mode: the outcome the simulator plans)')}`);

    ui.step(
      args.interactive ? 'Wait for you to pay in a browser' : 'Play the buyer: press Pay on the payment page',
    );
    if (args.interactive) {
      ui.line(`   Open ${ui.bold(created.payment_url)} and press Pay (or Decline).`);
      for (const url of otherMachineUrls(created.payment_url, args.host)) {
        ui.line(`   From another machine: ${ui.bold(url)}`);
      }
      const spin = ui.spin(`waiting up to ${args.timeoutSeconds} s for the buyer…`);
      try {
        const final = await webhooks.waitFor(
          (w) => w.objectId === payment.id,
          args.timeoutSeconds * 1000,
          'the buyer to pay',
          signal,
        );
        spin.succeed(`the buyer acted: ${final.event}`);
      } catch (err) {
        spin.fail((err as Error).message);
        throw err;
      }
    } else {
      const result = await payAsBuyer(created.payment_url);
      ui.ok(`Pay form submitted (HTTP ${result.status}${result.location ? ` → ${result.location}` : ''})`);
    }

    const spin = ui.spin('waiting for the payment.succeeded webhook…');
    const succeeded = await webhooks
      .waitFor((w) => w.objectId === payment.id, WAIT_MS, 'the payment webhook', signal)
      .catch((err: Error) => {
        spin.fail(err.message);
        throw err;
      });
    if (succeeded.event !== 'payment.succeeded') {
      spin.fail(`the payment ended with ${succeeded.event}; the demo needs a paid payment to refund`);
      throw new Error(`payment ended with ${succeeded.event}`);
    }
    spin.succeed('payment.succeeded received and verified');
    const paid = await client.payments.get(payment.id);
    ui.fact('status', ui.green(paid.status));

    ui.step('Refund part of the amount');
    const refundAmount = 50_000;
    const refund = await client.payments.refund(payment.id, {
      amount: refundAmount,
      reason: 'one item returned',
    });
    ui.fact('refund', `${refund.id} ${ui.dim(refund.status)}`);
    ui.fact('amount', money(refund.amount, payment.currency));
    const spinRefund = ui.spin('waiting for the payment.refunded webhook…');
    await webhooks
      .waitFor((w) => w.event === 'payment.refunded', WAIT_MS, 'payment.refunded')
      .catch((err: Error) => {
        spinRefund.fail(err.message);
        throw err;
      });
    spinRefund.succeed('payment.refunded received and verified');
    const afterRefund = await client.payments.get(payment.id);
    ui.fact('refunded', `${money(afterRefund.amount_refunded, payment.currency)} of ${money(amount)}`);

    ui.step('Pay out over SBP to a bank from the directory');
    const banks = await client.banks.list();
    const bank = banks.items.find((b) => b.name_en.startsWith('T-Bank')) ?? banks.items[0];
    if (!bank) throw new Error('the bank directory is empty');
    ui.fact('directory', `${banks.items.length} banks; chose ${bank.name_en} (${bank.member_id})`);
    const payoutAmount = 25_000;
    const res = await client.payouts.create({
      amount: payoutAmount,
      phone: '+79001234567',
      bank_id: bank.member_id,
      full_name: 'Ivan Petrov',
    });
    const payout = res.payout;
    ui.fact('payout', `${payout.id} ${ui.dim(payout.status)}`);
    ui.fact('recipient', `${payout.recipient?.phone ?? ''} at ${bank.name_en}`);
    if (res.simulator)
      ui.fact('planned', `${res.simulator} ${ui.dim('(the test bank settles payouts after a few seconds)')}`);
    const spinPayout = ui.spin('waiting for the payout outcome…');
    if (ref.clock.mode === 'manual') {
      // The test bank settles a payout after a delay on the service clock: move the frozen clock past it.
      const { now } = await ref.control.advanceClock(DEFAULTS.payoutDelayMs / 1000);
      ui.note(`advanced the service clock by ${DEFAULTS.payoutDelayMs / 1000} s to ${now}`);
    }
    const outcome = await webhooks
      .waitFor((w) => w.objectId === payout.id, WAIT_MS, 'the payout webhook', signal)
      .catch((err: Error) => {
        spinPayout.fail(err.message);
        throw err;
      });
    const finalPayout = await client.payouts.get(payout.id);
    spinPayout.succeed(`${outcome.event} received and verified`);
    ui.fact(
      'status',
      finalPayout.status === 'succeeded' ? ui.green(finalPayout.status) : ui.red(finalPayout.status),
    );

    // Let the stream print what is already on its way before closing it.
    await new Promise((r) => setTimeout(r, 50));
    const summary: DemoSummary = {
      paymentId: payment.id,
      paymentStatus: afterRefund.status,
      amount,
      refunded: afterRefund.amount_refunded,
      payoutId: payout.id,
      payoutStatus: finalPayout.status,
      payoutAmount,
      bank: bank.name_en,
      webhooksVerified: webhooks.items.length,
      webhooksRejected: rejected,
      sseEvents: sseCount,
      ms: performance.now() - started,
    };
    printSummary(ui, summary);
    return summary;
  } finally {
    ui.close();
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}

function printSummary(ui: Ui, s: DemoSummary): void {
  ui.line();
  ui.title('Summary');
  ui.fact('payment', `${money(s.amount)}  ${s.paymentStatus}`);
  ui.fact('refunded', money(s.refunded));
  ui.fact('payout', `${money(s.payoutAmount)} to ${s.bank}  ${s.payoutStatus}`);
  ui.fact('webhooks', `${s.webhooksVerified} verified, ${s.webhooksRejected} rejected`);
  ui.fact('sse events', String(s.sseEvents));
  ui.fact('time', duration(s.ms));
}

/** A cabinet call: what the merchant does by hand in the real service's cabinet UI. */
async function cabinet<T>(baseUrl: string, adminToken: string, path: string, body: unknown): Promise<T> {
  const res = await fetch(new URL(path, baseUrl), {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`cabinet ${path} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}
