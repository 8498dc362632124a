// An edge function (a Cloudflare Worker, the same code on Vercel's Edge Runtime) that uses the installed psp-sdk
// as a merchant would: it verifies the webhooks POSTed to
// /webhook and, on /client, creates a payment, reads it back and lists the SBP banks through PspClient. The test
// bundles it with esbuild and runs it in workerd (test/support/runtimes/edge-run.mjs); answers are JSON so that the
// test can tell what broke.
import { PspClient } from 'psp-sdk';
import { hmacBackend, verifyWebhook } from 'psp-sdk/webhooks';

const failure = (error) =>
  Response.json(
    {
      error: error?.constructor?.name,
      name: error?.name,
      code: error?.code,
      reason: error?.reason,
      message: String(error?.message ?? error),
    },
    { status: 500 },
  );

export default {
  async fetch(request, env) {
    const { pathname } = new URL(request.url);
    try {
      if (pathname === '/webhook') {
        // The raw bytes, as received: verification is over the exact body.
        const raw = new Uint8Array(await request.arrayBuffer());
        const event = verifyWebhook(raw, request.headers, env.WEBHOOK_SECRET);
        return Response.json({ verified: true, id: event.id, event: event.event, backend: hmacBackend() });
      }
      if (pathname === '/client') {
        const client = new PspClient({ apiKey: env.PSP_API_KEY, baseUrl: env.PSP_BASE_URL });
        const { payment, payment_url } = await client.payments.create({
          amount: 150_000,
          currency: 'RUB',
          order_id: 'edge-1',
        });
        const read = await client.payments.get(payment.id);
        const banks = await client.banks.list();
        return Response.json({
          // Vercel's Edge Runtime names itself in the EdgeRuntime global; workerd in navigator.userAgent.
          runtime: typeof EdgeRuntime === 'string' ? 'edge-runtime' : globalThis.navigator?.userAgent,
          created: payment.id,
          read: read.id,
          status: read.status,
          payment_url,
          banks: banks.items.length,
        });
      }
      return new Response('not found', { status: 404 });
    } catch (error) {
      return failure(error);
    }
  },
};
