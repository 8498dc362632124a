import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PspClient } from '../../src/index.js';
import { createReference } from '../../src/reference/index.js';
import { createReferenceHandlers } from '../../src/reference/msw.js';

const BASE = 'https://psp.test';
const reference = createReference({ clock: 'manual' });
const server = setupServer(
  ...createReferenceHandlers(reference, { baseUrl: BASE }),
  http.get('https://elsewhere.test/ping', () => HttpResponse.text('pong')),
);

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(async () => {
  server.resetHandlers();
  await reference.control.updateMerchant(reference.merchant_id, { ip_allow_list: [] });
});
afterAll(async () => {
  server.close();
  await reference.close();
});

const client = () => new PspClient({ apiKey: reference.api_key, baseUrl: BASE, maxRetries: 0 });

describe('msw handlers over an in-process reference', () => {
  it('routes SDK calls to the reference with no sockets: create, bank confirms, get, refund', async () => {
    const psp = client();
    const { payment, payment_url } = await psp.payments.create({ amount: 150_000, order_id: 'msw-1' });
    expect(payment.status).toBe('pending');
    expect(payment_url).toBe(`${BASE}/pay/${payment.id}`);
    await reference.control.succeedPayment(payment.id);
    expect((await psp.payments.get(payment.id)).status).toBe('succeeded');
    const refund = await psp.payments.refund(payment.id, { amount: 50_000 });
    expect(refund.amount).toBe(50_000);
    expect((await psp.payments.get(payment.id)).amount_refunded).toBe(50_000);
  });

  it("serves the buyer's page and its form posts through msw", async () => {
    const { payment, payment_url } = await client().payments.create({
      amount: 2500,
      description: '<i>x</i>',
    });
    const html = await (await fetch(payment_url)).text();
    expect(html).toContain('id="pay"');
    expect(html).toContain('&lt;i&gt;x&lt;/i&gt;');
    const res = await fetch(`${payment_url}/pay`, { method: 'POST', redirect: 'manual' });
    expect(res.status).toBe(303);
    expect((await client().payments.get(payment.id)).status).toBe('succeeded');
  });

  it('passes the error answers through unchanged', async () => {
    const res = await fetch(`${BASE}/api/v1/public/payments/00000000-0000-4000-8000-000000000000`, {
      headers: { authorization: `Bearer ${reference.api_key}` },
    });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBeTypeOf('string');
    const unauthorized = await fetch(`${BASE}/api/v1/public/banks/sbp`);
    expect(unauthorized.status).toBe(401);
  });

  it('reports 127.0.0.1 as the client address by default, or what the option says', async () => {
    await reference.control.updateMerchant(reference.merchant_id, { ip_allow_list: ['10.0.0.0/8'] });
    const denied = await fetch(`${BASE}/api/v1/public/banks/sbp`, {
      headers: { authorization: `Bearer ${reference.api_key}` },
    });
    expect(denied.status).toBe(403);
    expect(((await denied.json()) as { error: { code: string } }).error.code).toBe('ip_not_allowed');

    server.use(...createReferenceHandlers(reference, { baseUrl: BASE, remoteAddress: () => '10.1.2.3' }));
    const allowed = await fetch(`${BASE}/api/v1/public/banks/sbp`, {
      headers: { authorization: `Bearer ${reference.api_key}` },
    });
    expect(allowed.status).toBe(200);
  });

  it('streams the SSE feed through msw', async () => {
    const controller = new AbortController();
    const res = await fetch(`${BASE}/api/v1/public/events`, {
      headers: { authorization: `Bearer ${reference.api_key}` },
      signal: controller.signal,
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    // A stream that ends early fails here with what it sent, instead of spinning until the test times out.
    const readUntil = async (needle: string) => {
      while (!text.includes(needle)) {
        const { done, value } = await reader.read();
        if (done) throw new Error(`the stream ended before ${needle}: ${JSON.stringify(text)}`);
        text += decoder.decode(value, { stream: true });
      }
    };
    await readUntil(': connected');
    const { payment } = await client().payments.create({ amount: 900 });
    await readUntil(payment.id);
    expect(text).toContain('event: payment.created');
    // Not awaited: msw keeps a clone of every mocked response, and a cancel of one branch of a cloned body settles
    // only once the other branch is cancelled too, which for msw's unread clone is when the GC collects it.
    void reader.cancel();
    controller.abort();
  });

  it("carries the SDK's event stream: client.events.stream() sees payment events with no socket", async () => {
    const psp = client();
    // The reference has registered the stream once msw hands its response back: only then make the payment.
    const opened = new Promise<void>((resolve) => {
      const onMocked = ({ request }: { request: Request }) => {
        if (new URL(request.url).pathname !== '/api/v1/public/events') return;
        server.events.removeListener('response:mocked', onMocked);
        resolve();
      };
      server.events.on('response:mocked', onMocked);
    });
    const stream = psp.events.stream();
    const seen: string[] = [];
    const iterate = (async () => {
      for await (const event of stream) {
        seen.push(event.kind);
        if (event.kind === 'payment.status_changed') break;
      }
    })();
    await opened;
    const { payment } = await psp.payments.create({ amount: 1200 });
    await reference.control.succeedPayment(payment.id);
    await iterate;
    stream.close();
    expect(seen).toEqual(['payment.created', 'payment.status_changed']);
  });

  it('strips a base path prefix and leaves other origins to other handlers', async () => {
    server.use(...createReferenceHandlers(reference, { baseUrl: 'https://gateway.test/psp/' }));
    const psp = new PspClient({
      apiKey: reference.api_key,
      baseUrl: 'https://gateway.test/psp',
      maxRetries: 0,
    });
    const { items } = await psp.banks.list();
    expect(items).toHaveLength(30);
    const created = await fetch('https://gateway.test/psp/api/v1/public/payments', {
      method: 'POST',
      headers: { authorization: `Bearer ${reference.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 100 }),
    });
    expect(created.status).toBe(201);
    expect(await (await fetch('https://elsewhere.test/ping')).text()).toBe('pong');
  });

  it('matches the base and below only, not a look-alike origin or a sibling path', async () => {
    const [handler] = createReferenceHandlers(reference, { baseUrl: 'https://gateway.test/psp' });
    const matches = async (url: string) =>
      (await handler!.run({ request: new Request(url), requestId: crypto.randomUUID() })) !== null;
    expect(await matches('https://gateway.test/psp/api/v1/public/banks/sbp')).toBe(true);
    expect(await matches('https://gateway.test/psp')).toBe(true);
    expect(await matches('https://gateway.test/psp?x=1')).toBe(true);
    expect(await matches('https://gateway.test/pspx/api')).toBe(false);
    expect(await matches('https://gateway.test/api/v1/public/banks/sbp')).toBe(false);
    expect(await matches('https://gateway.test.evil/psp/api')).toBe(false);
    expect(await matches('http://gateway.test/psp/api')).toBe(false);
  });

  it('refuses a baseUrl that is not an absolute http(s) URL', () => {
    expect(() => createReferenceHandlers(reference, { baseUrl: '/relative' })).toThrow(TypeError);
    expect(() => createReferenceHandlers(reference, { baseUrl: 'ftp://x.test' })).toThrow(/http or https/);
  });
});
