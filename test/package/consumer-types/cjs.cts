// Compiled by test/package/types.test.ts (node16, CommonJS side: the .d.cts files).
import sdk = require('psp-sdk');
import webhooks = require('psp-sdk/webhooks');
import reference = require('psp-sdk/reference');

export async function merchantFlow(): Promise<string> {
  const ref = await reference.startReference({ port: 0 });
  const client = new sdk.PspClient({ apiKey: ref.api_key, baseUrl: ref.base_url });
  const { payment } = await client.payments.create({ amount: 1000 });
  const signed = webhooks.signWebhook(
    { id: 'evt_1', event: 'payment.succeeded', data: payment },
    'whs_secret',
  );
  const event = webhooks.verifyWebhook(signed.body, signed.headers, 'whs_secret');
  await ref.close();
  return event.id;
}
