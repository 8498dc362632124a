/**
 * A webhook receiver on plain node:http: read the raw body, verify the signature, de-duplicate by event id,
 * answer 2xx fast. Any other answer (or none within 15 s) makes the service retry the event later.
 *
 *   PSP_WEBHOOK_SECRET=whs_... npx tsx examples/webhook-server-node.ts      (listens on PORT, default 3000)
 *
 * Without PSP_WEBHOOK_SECRET it starts the embedded reference, registers itself as the shop's webhook endpoint,
 * makes a payment that gets paid, prints the webhook, and exits. In your app, import from 'psp-sdk/webhooks'
 * instead of '../src/webhooks/index.js'.
 */
import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PspClient } from '../src/index.js';
import { startReference } from '../src/reference/index.js';
import { type WebhookEvent, WebhookVerificationError, verifyWebhook } from '../src/webhooks/index.js';
import { isMain } from './support/run.js';

export interface WebhookServerOptions {
  /** The endpoint's `whs_` secret; during a rotation pass both the new and the old one. */
  secret: string | string[];
  /** Your business logic. Throwing makes the server answer 500, so the service retries the event. */
  onEvent(event: WebhookEvent): void | Promise<void>;
}

function rawBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The request listener: mount it in an existing node:http server, or use {@link createWebhookServer}. */
export function webhookListener({ secret, onEvent }: WebhookServerOptions): RequestListener {
  // Events may arrive more than once (retries, manual resends): remember ids you have handled. In production use
  // your database, with a unique constraint on the event id so that two concurrent copies are handled once.
  const seen = new Set<string>();

  async function handle(req: IncomingMessage): Promise<{ status: number; text?: string }> {
    if (req.method !== 'POST' || req.url !== '/webhooks/psp') return { status: 404 };
    // The signature covers the exact bytes: verify the raw body, never a re-serialised JSON.parse result.
    const body = await rawBody(req);
    let event: WebhookEvent;
    try {
      event = verifyWebhook(body, req.headers, secret);
    } catch (err) {
      if (err instanceof WebhookVerificationError) return { status: 400, text: `rejected: ${err.reason}` };
      throw err;
    }
    if (!seen.has(event.id)) {
      await onEvent(event); // throwing here answers 500: the service delivers the event again later
      seen.add(event.id);
    }
    return { status: 204 };
  }

  return (req, res) => {
    handle(req).then(
      ({ status, text }) => res.writeHead(status, text ? { 'content-type': 'text/plain' } : {}).end(text),
      () => {
        if (!res.headersSent) res.writeHead(500).end();
      },
    );
  };
}

export function createWebhookServer(options: WebhookServerOptions): Server {
  return createServer(webhookListener(options));
}

if (isMain(import.meta.url)) {
  const secret = process.env.PSP_WEBHOOK_SECRET;
  if (secret) {
    const port = Number(process.env.PORT ?? 3000);
    createWebhookServer({
      secret,
      onEvent: (event) => console.log(event.event, event.id, (event.data as { id: string }).id),
    }).listen(port, () => console.log(`webhooks on http://localhost:${port}/webhooks/psp`));
  } else {
    // Self-contained run on the embedded reference: the cabinet step a merchant does by hand is an API call here.
    const reference = await startReference({ port: 0 });
    let done: (event: WebhookEvent) => void = () => {};
    const received = new Promise<WebhookEvent>((resolve) => {
      done = resolve;
    });
    // The endpoint's secret exists only once it is registered, which needs the server's URL: listen first.
    let listener: RequestListener | undefined;
    const server = createServer((req, res) => (listener ? listener(req, res) : res.writeHead(503).end()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/psp`;
    const endpoint = await reference.control.createWebhookEndpoint(reference.shop_id, { url });
    listener = webhookListener({ secret: endpoint.secret, onEvent: done });
    const client = new PspClient({ apiKey: reference.api_key, baseUrl: reference.base_url });
    const { payment } = await client.payments.create({ amount: 10_000, order_id: 'webhook-demo' });
    await reference.control.succeedPayment(payment.id);
    const event = await received;
    console.log(`verified ${event.event} ${event.id} for payment ${(event.data as { id: string }).id}`);
    server.closeAllConnections();
    server.close();
    await reference.close();
  }
}
