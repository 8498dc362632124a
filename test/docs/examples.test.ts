import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPayment } from '../../examples/create-payment.js';
import { listen } from '../../examples/event-stream.js';
import { sbpPayout } from '../../examples/sbp-payout.js';
import { runExample } from '../../examples/support/run.js';
import { webhookListener } from '../../examples/webhook-server-node.js';
import { PspClient, type SseEvent } from '../../src/index.js';
import { type RunningReference, startReference } from '../../src/reference/index.js';
import type { WebhookEvent } from '../../src/webhooks/index.js';
import { until } from './until.js';

const root = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);

describe('examples against the reference', () => {
  let ref: RunningReference;
  let client: PspClient;

  beforeAll(async () => {
    ref = await startReference({ port: 0, clock: 'manual' });
    client = new PspClient({ apiKey: ref.api_key, baseUrl: ref.base_url });
  });
  afterAll(() => ref.close());

  it('create-payment: a pending test payment with its page URL, one payment per order', async () => {
    const order = { id: 'ex-1', total: 249_900, description: 'Espresso machine' };
    const first = await createPayment(client, order);
    expect(first).toMatchObject({ status: 'pending', mode: 'test' });
    expect(first.redirectTo).toBe(`${ref.pay_url}/${first.paymentId}`);
    await expect(createPayment(client, order)).resolves.toMatchObject({ paymentId: first.paymentId });
    await expect(createPayment(client, { ...order, id: 'ex-2', total: 0 })).rejects.toThrow(
      /order ex-2 cannot be paid: amount/,
    );
  });

  it('sbp-payout: picks the bank by name and follows the payout to its outcome', async () => {
    const paying = sbpPayout(
      client,
      { amount: 50_000, phone: '+79001234567', bankName: 'sberbank', reference: 'w-1' },
      { pollMs: 10 },
    );
    // The test bank settles payouts 5 s later on the service clock: move the frozen clock while it polls.
    let settled = false;
    void paying.finally(() => {
      settled = true;
    });
    await until(async () => {
      if (!settled) await ref.control.advanceClock(1);
      return settled || undefined;
    }, 'the payout');
    await expect(paying).resolves.toMatchObject({ bank: 'Sberbank', status: 'succeeded', failReason: null });

    const declined = sbpPayout(
      client,
      { amount: 50_901, phone: '+79001234567', bankName: 'VTB', reference: 'w-2' },
      { pollMs: 10 },
    );
    await until(async () => {
      await ref.control.advanceClock(1);
      return Promise.race([
        declined,
        new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 10)),
      ]);
    }, 'the declined payout');
    await expect(declined).resolves.toMatchObject({ status: 'failed', failReason: expect.any(String) });

    await expect(
      sbpPayout(client, { amount: 1, phone: '+79001234567', bankName: 'No Such Bank', reference: 'w-3' }),
    ).rejects.toThrow('no SBP bank matches "No Such Bank" in the directory of 30');
  });

  it('event-stream: prints and hands over payment events until aborted', async () => {
    const print = vi.spyOn(console, 'log').mockImplementation(() => {});
    const controller = new AbortController();
    const events: SseEvent[] = [];
    const listening = listen(client, { signal: controller.signal, onEvent: (e) => events.push(e) });
    // The stream connects asynchronously: keep making payments until one is seen, then check its events.
    const seen = await until(async () => {
      const { payment } = await client.payments.create({ amount: 10_000, order_id: 'stream' });
      await new Promise((r) => setTimeout(r, 50));
      return events.some((e) => e.payload.id === payment.id) ? payment.id : undefined;
    }, 'a payment.created event');
    await client.payments.cancel(seen);
    await until(
      () =>
        events.find(
          (e) =>
            e.kind === 'payment.status_changed' && e.payload.id === seen && e.payload.status === 'cancelled',
        ),
      'the cancellation event',
    );
    controller.abort();
    await listening.catch(() => {});
    expect(print).toHaveBeenCalledWith(`payment ${seen} is now cancelled`);
    print.mockRestore();
  });

  describe('webhook-server-node', () => {
    let server: Server;
    let endpointId = '';
    const handled: WebhookEvent[] = [];
    let failNext = false;

    beforeAll(async () => {
      let listener: ReturnType<typeof webhookListener> | undefined;
      server = createServer((req, res) => listener?.(req, res));
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/psp`;
      const endpoint = await ref.control.createWebhookEndpoint(ref.shop_id, { url });
      endpointId = endpoint.id;
      listener = webhookListener({
        secret: endpoint.secret,
        onEvent: (e) => {
          if (failNext) {
            failNext = false;
            throw new Error('database down');
          }
          handled.push(e);
        },
      });
    });
    afterAll(
      () =>
        new Promise<void>((r) => {
          server.closeAllConnections();
          server.close(() => r());
        }),
    );

    const deliveries = async () => (await ref.control.listDeliveries(endpointId)).items;

    it('verifies a real delivery and hands the typed event to the app', async () => {
      const { payment } = await client.payments.create({ amount: 12_000, order_id: 'wh-1' });
      await ref.control.succeedPayment(payment.id);
      const event = await until(
        () => handled.find((e) => (e.data as { id: string }).id === payment.id),
        'webhook',
      );
      expect(event.event).toBe('payment.succeeded');
      expect(event.id).toMatch(/^evt_/);
      await until(
        async () => (await deliveries()).find((d) => d.event_id === event.id && d.status_code === 204),
        'a 204 in the log',
      );
    });

    it('handles a redelivered event once', async () => {
      const first = handled.at(-1)!;
      const before = handled.length;
      await ref.control.resendEvent(first.id);
      await until(
        async () =>
          (await deliveries()).filter((d) => d.event_id === first.id && d.status_code === 204).length === 2
            ? true
            : undefined,
        'the resend',
      );
      expect(handled.length).toBe(before);
    });

    it('answers 500 when the app fails, so the service retries and the event is handled then', async () => {
      failNext = true;
      const { payment } = await client.payments.create({ amount: 13_000, order_id: 'wh-2' });
      await ref.control.succeedPayment(payment.id);
      await until(async () => (await deliveries()).find((d) => d.status_code === 500), 'the failed delivery');
      expect(handled.some((e) => (e.data as { id: string }).id === payment.id)).toBe(false);
      await ref.control.advanceClock(10); // the first retry comes 10 s later
      await until(
        () => handled.find((e) => (e.data as { id: string }).id === payment.id),
        'the retried webhook',
      );
    });

    it('refuses a forged request with 400 and the reason', async () => {
      const { port } = server.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/webhooks/psp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-psp-signature': `sha256=${'0'.repeat(64)}` },
        body: JSON.stringify({
          id: 'evt_forged',
          event: 'payment.succeeded',
          created_at: new Date().toISOString(),
          data: {},
        }),
      });
      expect(res.status).toBe(400);
      expect(await res.text()).toBe('rejected: no_matching_signature');
    });
  });
});

describe('running an example file', () => {
  it('runExample: without PSP_API_KEY it starts the embedded reference, prints the result and closes it', async () => {
    const saved = process.env.PSP_API_KEY;
    delete process.env.PSP_API_KEY;
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      let base = '';
      await runExample(async ({ client, reference }) => {
        base = reference!.base_url;
        return createPayment(client, { id: 'file-1', total: 1_000, description: 'x' });
      });
      expect(err).toHaveBeenCalledWith(expect.stringContaining('started the embedded reference'));
      expect(JSON.parse(String(log.mock.calls[0]?.[0]))).toMatchObject({ status: 'pending', mode: 'test' });
      await expect(fetch(base)).rejects.toThrow(); // closed
    } finally {
      log.mockRestore();
      err.mockRestore();
      if (saved !== undefined) process.env.PSP_API_KEY = saved;
    }
  });

  it('commonjs.cjs runs under plain node, requiring the built package by its name', {
    timeout: 60_000,
  }, async () => {
    // Inside the repository `require('psp-sdk')` is the package's own exports (self-reference): dist/, as built
    // by npm test's first stage.
    if (!existsSync(join(root, 'dist', 'index.cjs')))
      throw new Error('dist/ is missing: run `npm run build` first');
    const env = { ...process.env, PSP_API_KEY: undefined, PSP_BASE_URL: undefined };
    const { stdout } = await run(process.execPath, ['examples/commonjs.cjs'], {
      cwd: root,
      env,
      timeout: 30_000,
    });
    expect(stdout).toMatch(
      /^payment [0-9a-f-]{36} is pending; send the buyer to http:\/\/127\.0\.0\.1:\d+\/pay\//,
    );
    expect(stdout).toContain('a missing payment: NotFoundError 404 not_found');
    expect(stdout).toContain('verified payment.succeeded evt_cjs_1');
    expect(stdout).toContain('a tampered body is refused: no_matching_signature');
  });

  it('webhook-server-node.ts as a process (npx tsx): registers itself, verifies a real delivery, exits 0', {
    timeout: 90_000,
  }, async () => {
    const env = { ...process.env, PSP_API_KEY: undefined, PSP_WEBHOOK_SECRET: undefined };
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'examples/webhook-server-node.ts'], {
      cwd: root,
      env,
      // A hang (a handle left open) fails here; the margin is for a loaded CI machine.
      timeout: 60_000,
    });
    expect(stdout).toMatch(/verified payment\.succeeded evt_\w+ for payment [0-9a-f-]{36}/);
  });
});
