/**
 * A webhook receiver on Deno.serve. createWebhookHandler reads the raw body, verifies the signature and answers
 * 200 once your handler returns, 400 on a bad signature, 500 when your handler throws (the service retries).
 *
 *   PSP_WEBHOOK_SECRET=whs_... deno run --allow-net --allow-env examples/deno/webhook-handler.ts
 *
 * Listens on 127.0.0.1:$PORT (default 8000) at /webhooks/psp and prints one line per verified event. In your
 * project, map 'psp-sdk/webhooks' to 'npm:psp-sdk/webhooks' in deno.json (here examples/deno/deno.json maps it
 * to this repository's sources).
 */
import { createWebhookHandler } from 'psp-sdk/webhooks';

const secret = Deno.env.get('PSP_WEBHOOK_SECRET');
if (!secret) {
  console.error('set PSP_WEBHOOK_SECRET to the endpoint secret (whs_...) shown by the cabinet');
  Deno.exit(2);
}

const handle = createWebhookHandler({
  secret,
  on: {
    'payment.succeeded': (event) => console.log(`paid ${event.data.id} order=${event.data.order_id ?? '-'}`),
    'payment.refunded': (event) => console.log(`refunded ${event.data.amount_refunded} of ${event.data.id}`),
    'payout.succeeded': (event) => console.log(`payout ${event.data.id} passed`),
    'payout.failed': (event) =>
      console.log(`payout ${event.data.id} failed: ${event.data.fail_reason ?? '?'}`),
  },
  // Anything else, including event names newer than this SDK: acknowledge so it is not retried.
  fallback: (event) => console.log(`ignored ${event.event}`),
});

Deno.serve(
  {
    hostname: '127.0.0.1',
    port: Number(Deno.env.get('PORT') ?? 8000),
    onListen: ({ hostname, port }) => console.log(`listening on http://${hostname}:${port}/webhooks/psp`),
  },
  (request) =>
    new URL(request.url).pathname === '/webhooks/psp'
      ? handle(request)
      : new Response('not found', { status: 404 }),
);
