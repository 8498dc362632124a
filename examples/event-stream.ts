/**
 * Follow payments and payouts live on the Server-Sent Events stream (best-effort; webhooks are the guaranteed
 * channel). The SDK reconnects by itself and tells you when it did, so you can re-read what you track.
 *
 *   npx tsx examples/event-stream.ts          (Ctrl-C to stop)
 *
 * Uses PSP_API_KEY / PSP_BASE_URL when set, else the embedded reference service. In your app, import from
 * 'psp-sdk' instead of '../src/index.js'.
 */
import type { PspClient, SseEvent } from '../src/index.js';
import { isMain, runExample } from './support/run.js';

export interface ListenOptions {
  signal: AbortSignal;
  onEvent(event: SseEvent): void;
  /** Called after a reconnect: events may have been missed meanwhile, so reconcile with a GET. */
  onReconnect?(attempt: number): void;
}

/** Streams events until `signal` aborts. */
export async function listen(
  client: PspClient,
  { signal, onEvent, onReconnect }: ListenOptions,
): Promise<void> {
  const stream = client.events.stream({
    signal,
    onReconnect: ({ attempt, reason }) => {
      console.error(`event stream reconnected (attempt ${attempt}: ${reason})`);
      onReconnect?.(attempt);
    },
  });
  for await (const event of stream) {
    switch (event.kind) {
      case 'payment.created':
        console.log(`payment ${event.payload.id} created for ${event.payload.amount}`);
        break;
      case 'payment.status_changed':
      case 'payout.status_changed':
        console.log(`${event.kind.split('.')[0]} ${event.payload.id} is now ${event.payload.status}`);
        break;
      default:
        console.log(event.kind, event.payload.id);
    }
    onEvent(event);
  }
}

if (isMain(import.meta.url)) {
  await runExample(async ({ client, reference }) => {
    const controller = new AbortController();
    process.once('SIGINT', () => controller.abort());
    const listening = listen(client, { signal: controller.signal, onEvent: () => {} });
    if (reference) {
      // Against the embedded reference, make something happen to watch, then stop.
      const { payment } = await client.payments.create({ amount: 10_000, order_id: 'stream-demo' });
      await client.payments.cancel(payment.id);
      setTimeout(() => controller.abort(), 500);
    }
    await listening.catch((err: unknown) => {
      if (!controller.signal.aborted) throw err;
    });
  });
}
