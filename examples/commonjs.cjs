// The SDK from CommonJS: `require` instead of `import`, no top-level await, no build step.
//
//   node examples/commonjs.cjs        (after `npm run build`: inside this repository `psp-sdk` is the built package)
//
// Uses PSP_API_KEY / PSP_BASE_URL when set, else starts the embedded reference service. Copy it as is: the
// requires are the ones your app writes.
const { PspClient, PspApiError } = require('psp-sdk');
const { signWebhook, verifyWebhook, WebhookVerificationError } = require('psp-sdk/webhooks');
const { startReference } = require('psp-sdk/reference');

async function main() {
  const reference = process.env.PSP_API_KEY ? undefined : await startReference({ port: 0 });
  try {
    const client = new PspClient(
      reference ? { apiKey: reference.api_key, baseUrl: reference.base_url } : {}, // else PSP_API_KEY/PSP_BASE_URL
    );
    const { payment, payment_url } = await client.payments.create(
      { amount: 150_000, currency: 'RUB', order_id: 'cjs-1042', description: 'Espresso machine' },
      { idempotencyKey: 'cjs-1042' },
    );
    console.log(`payment ${payment.id} is ${payment.status}; send the buyer to ${payment_url}`);

    try {
      await client.payments.get('00000000-0000-4000-8000-000000000000');
    } catch (err) {
      if (!(err instanceof PspApiError)) throw err;
      console.log(`a missing payment: ${err.name} ${err.status} ${err.code}`);
    }

    // Webhooks: verify the raw body against the endpoint's secret (here one signed locally, as a test would).
    const secret = 'whs_commonjs_example_secret_0123456789';
    const signed = signWebhook(
      { id: 'evt_cjs_1', event: 'payment.succeeded', created_at: new Date().toISOString(), data: payment },
      secret,
    );
    const event = verifyWebhook(signed.body, signed.headers, secret);
    console.log(`verified ${event.event} ${event.id}`);
    try {
      verifyWebhook(`${signed.body} `, signed.headers, secret);
    } catch (err) {
      if (!(err instanceof WebhookVerificationError)) throw err;
      console.log(`a tampered body is refused: ${err.reason}`);
    }
  } finally {
    await reference?.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
