import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type RunningReference, startReference } from '../../src/reference/start.js';
import { verifyWebhook, type WebhookVerificationError } from '../../src/webhooks/index.js';

// Real deliveries from the reference service, verified by the SDK: the sender and the verifier agree on the wire.
interface Delivery {
  body: Buffer;
  headers: IncomingHttpHeaders;
}

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function receiver(): Promise<{ url: string; deliveries: Delivery[] }> {
  const deliveries: Delivery[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      deliveries.push({ body: Buffer.concat(chunks), headers: req.headers });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanup.push(() => new Promise((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, deliveries };
}

async function reference(): Promise<RunningReference> {
  const ref = await startReference({ port: 0 });
  cleanup.push(() => ref.close());
  return ref;
}

async function paidPayment(ref: RunningReference): Promise<string> {
  const res = await fetch(`${ref.base_url}/api/v1/public/payments`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ref.api_key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount: 99_900, order_id: 'A-1' }),
  });
  const id = ((await res.json()) as { payment: { id: string } }).payment.id;
  await ref.control.succeedPayment(id);
  return id;
}

const reasonOf = (fn: () => unknown) => {
  try {
    fn();
    return 'ok';
  } catch (e) {
    return (e as WebhookVerificationError).reason;
  }
};

describe('verifyWebhook on real deliveries of the reference service', () => {
  it('v2: a delivered payment.succeeded verifies, typed, with the headers of spec 6.1', async () => {
    const ref = await reference();
    const hook = await receiver();
    const { secret } = await ref.control.createWebhookEndpoint(ref.shop_id, { url: hook.url });
    const id = await paidPayment(ref);
    await vi.waitFor(() => expect(hook.deliveries.length).toBeGreaterThan(0), { timeout: 5_000 });
    const { body, headers } = hook.deliveries[0]!;
    expect(headers['x-psp-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64},v2=[0-9a-f]{64}$/);
    expect(headers['user-agent']).toBe('psp-webhook/1.0');
    const event = verifyWebhook(body, headers, secret, { requireV2: true });
    expect(event.event).toBe('payment.succeeded');
    if (event.event === 'payment.succeeded') {
      expect(event.data.id).toBe(id);
      expect(event.data.shop_id).toBe(ref.shop_id);
    }
    expect(headers['x-psp-event-id']).toBe(event.id);
    expect(reasonOf(() => verifyWebhook(body, headers, 'whs_not_the_secret'))).toBe('no_matching_signature');
    expect(reasonOf(() => verifyWebhook(body.toString().replace('99900', '1'), headers, secret))).toBe(
      'no_matching_signature',
    );
  });

  it('v1 endpoint: sha256= verifies by default and is refused with requireV2', async () => {
    const ref = await reference();
    const hook = await receiver();
    const { secret } = await ref.control.createWebhookEndpoint(ref.shop_id, {
      url: hook.url,
      signature_version: 'v1',
    });
    await paidPayment(ref);
    await vi.waitFor(() => expect(hook.deliveries.length).toBeGreaterThan(0), { timeout: 5_000 });
    const { body, headers } = hook.deliveries[0]!;
    expect(headers['x-psp-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifyWebhook(body, headers, secret).event).toBe('payment.succeeded');
    expect(reasonOf(() => verifyWebhook(body, headers, secret, { requireV2: true }))).toBe('v1_not_allowed');
  });

  it('rotation: after rotate-secret only the new secret verifies, and a [new, old] list does', async () => {
    const ref = await reference();
    const hook = await receiver();
    const endpoint = await ref.control.createWebhookEndpoint(ref.shop_id, { url: hook.url });
    const { secret: rotated } = await ref.control.rotateWebhookSecret(endpoint.id);
    await paidPayment(ref);
    await vi.waitFor(() => expect(hook.deliveries.length).toBeGreaterThan(0), { timeout: 5_000 });
    const { body, headers } = hook.deliveries[0]!;
    expect(reasonOf(() => verifyWebhook(body, headers, endpoint.secret))).toBe('no_matching_signature');
    expect(reasonOf(() => verifyWebhook(body, headers, rotated))).toBe('ok');
    expect(reasonOf(() => verifyWebhook(body, headers, [endpoint.secret, rotated]))).toBe('ok');
  });
});
