// Compiled (never run) by test/package/types.test.ts inside the temp consumer, against the published .d.ts files,
// with no DOM lib: what a Node merchant writes must type-check with only @types/node beside the package.
import { type Payment, PspApiError, PspClient, type SseEvent } from 'psp-sdk';
import { createReference, ManualClock, type RunningReference, startReference } from 'psp-sdk/reference';
import { signWebhook, verifyWebhook, WebhookVerificationError } from 'psp-sdk/webhooks';

export async function merchantFlow(): Promise<Payment> {
  const ref: RunningReference = await startReference({ port: 0, clock: 'manual' });
  const client = new PspClient({ apiKey: ref.api_key, baseUrl: ref.base_url, maxRetries: 1 });
  try {
    const { payment, payment_url } = await client.payments.create({ amount: 150_000, order_id: 'A-1' });
    const url: string = payment_url;
    const signed = signWebhook({ id: 'evt_1', event: 'payment.succeeded', data: payment }, 'whs_secret');
    const event = verifyWebhook(signed.body, signed.headers, 'whs_secret');
    const name: string = event.event;
    for await (const ev of client.events.stream()) {
      const kind: SseEvent['kind'] = ev.kind;
      void kind;
      break;
    }
    void url;
    void name;
    return await client.payments.get(payment.id);
  } catch (error) {
    if (error instanceof PspApiError) throw new Error(`${error.status} ${error.code}`);
    if (error instanceof WebhookVerificationError) throw error;
    throw error;
  } finally {
    await ref.close();
  }
}

export const inProcess = createReference({ clock: new ManualClock() });
