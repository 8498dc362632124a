import { afterEach, describe, expect, it } from 'vitest';
import { type RunningReference, startReference } from '../../src/reference/index.js';

const running: RunningReference[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

async function start(options: Parameters<typeof startReference>[0] = {}) {
  const ref = await startReference({ port: 0, ...options });
  running.push(ref);
  return ref;
}

function api(ref: RunningReference, path: string, init: RequestInit = {}, key = ref.api_key) {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${key}`);
  if (init.body) headers.set('content-type', 'application/json');
  return fetch(`${ref.base_url}${path}`, { ...init, headers });
}

describe('startReference', () => {
  it('binds 127.0.0.1 on a free port and returns the contract facts', async () => {
    const ref = await start();
    expect(ref.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ref.base_url).not.toBe('http://127.0.0.1:0');
    expect(ref.pay_url).toBe(`${ref.base_url}/pay`);
    expect(ref.api_key).toMatch(/^sk_test_[A-Za-z0-9]{6}_.+/);
    expect(ref.signing_secret).toMatch(/^thm_.+/);
    for (const id of [ref.merchant_id, ref.shop_id, ref.terminal_id]) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    expect(ref.admin_token.length).toBeGreaterThan(20);
    expect(ref.api_key).toBe(ref.api_key);
    expect(ref.clock.mode).toBe('real');
  });

  it('drives a full payment over HTTP: create, buyer page, pay, succeeded, partial refund', async () => {
    const ref = await start();
    const created = await api(ref, '/api/v1/public/payments', {
      method: 'POST',
      body: JSON.stringify({ amount: 150000, order_id: 'A-1', description: 'Tea <b>set</b>' }),
    });
    expect(created.status).toBe(201);
    const { payment, payment_url, mode } = (await created.json()) as {
      payment: { id: string; status: string };
      payment_url: string;
      mode: string;
    };
    expect(mode).toBe('test');
    expect(payment.status).toBe('pending');
    expect(payment_url).toBe(`${ref.pay_url}/${payment.id}`);

    const page = await fetch(payment_url);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('1\u00a0500,00\u00a0₽');
    expect(html).toContain('A-1');
    expect(html).toContain('Tea &lt;b&gt;set&lt;/b&gt;');
    expect(html).toContain('id="pay"');

    const paid = await fetch(`${payment_url}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
      redirect: 'manual',
    });
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe(`/pay/${payment.id}`);
    const after = await (await fetch(payment_url)).text();
    expect(after).toMatch(/id="status"[^>]*data-status="succeeded"/);
    expect(after).not.toContain('id="pay"');

    const got = (await (await api(ref, `/api/v1/public/payments/${payment.id}`)).json()) as {
      status: string;
    };
    expect(got.status).toBe('succeeded');

    const refund = await api(ref, `/api/v1/public/payments/${payment.id}/refund`, {
      method: 'POST',
      body: JSON.stringify({ amount: 50000, reason: 'one cup broke' }),
    });
    expect(refund.status).toBe(201);
    expect(await refund.json()).toMatchObject({ payment_id: payment.id, amount: 50000 });
    const final = (await (await api(ref, `/api/v1/public/payments/${payment.id}`)).json()) as {
      amount_refunded: number;
      refunds: unknown[];
    };
    expect(final.amount_refunded).toBe(50000);
    expect(final.refunds).toHaveLength(1);
  });

  it('follows the 303 to return_url after the buyer declines', async () => {
    const ref = await start();
    const { payment, payment_url } = (await (
      await api(ref, '/api/v1/public/payments', {
        method: 'POST',
        body: JSON.stringify({ amount: 1000, return_url: `${ref.base_url}/pay/back-to-shop` }),
      })
    ).json()) as { payment: { id: string }; payment_url: string };
    const res = await fetch(`${payment_url}/decline`, { method: 'POST', redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${ref.base_url}/pay/back-to-shop`);
    const got = (await (await api(ref, `/api/v1/public/payments/${payment.id}`)).json()) as {
      status: string;
    };
    expect(got.status).toBe('failed');
  });

  it("the buyer's page of an unknown payment is a 404 page over HTTP", async () => {
    const ref = await start();
    const res = await fetch(`${ref.pay_url}/00000000-0000-4000-8000-000000000000`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(await res.text()).toContain('Платёж не найден'); // the page's default language
  });

  it('judges the IP allow-list by the real socket address 127.0.0.1', async () => {
    const ref = await start();
    await ref.control.updateMerchant(ref.merchant_id, { ip_allow_list: ['10.0.0.0/8'] });
    const denied = await api(ref, '/api/v1/public/banks/sbp');
    expect(denied.status).toBe(403);
    expect(((await denied.json()) as { error: { code: string } }).error.code).toBe('ip_not_allowed');
    // A forwarded header does not fool it: forwarded addresses are not trusted by default.
    const spoofed = await api(ref, '/api/v1/public/banks/sbp', {
      headers: { 'x-forwarded-for': '10.1.2.3' },
    });
    expect(spoofed.status).toBe(403);

    await ref.control.updateMerchant(ref.merchant_id, { ip_allow_list: ['127.0.0.1'] });
    expect((await api(ref, '/api/v1/public/banks/sbp')).status).toBe(200);
  });

  it('trusts X-Forwarded-For only when trustProxy is on', async () => {
    const ref = await start({ trustProxy: true });
    await ref.control.updateMerchant(ref.merchant_id, { ip_allow_list: ['10.0.0.0/8'] });
    expect((await api(ref, '/api/v1/public/banks/sbp')).status).toBe(403);
    const forwarded = await api(ref, '/api/v1/public/banks/sbp', {
      headers: { 'x-forwarded-for': '10.1.2.3' },
    });
    expect(forwarded.status).toBe(200);
  });

  it('puts publicUrl into payment_url when given', async () => {
    const ref = await start({ publicUrl: 'https://checkout.example.test' });
    const { payment, payment_url } = (await (
      await api(ref, '/api/v1/public/payments', { method: 'POST', body: '{"amount":100}' })
    ).json()) as { payment: { id: string }; payment_url: string };
    expect(payment_url).toBe(`https://checkout.example.test/pay/${payment.id}`);
  });

  it('hands IPv4 clients of a dual-stack listener to the allow-list as plain IPv4, and IPv6 ones as IPv6', async () => {
    const ref = await start({ host: '::' });
    expect(ref.base_url).toMatch(/^http:\/\/\[::1\]:\d+$/);
    const port = new URL(ref.base_url).port;
    const v4 = `http://127.0.0.1:${port}/api/v1/public/banks/sbp`;
    const v6 = `http://[::1]:${port}/api/v1/public/banks/sbp`;
    const auth = { authorization: `Bearer ${ref.api_key}` };
    await ref.control.updateMerchant(ref.merchant_id, { ip_allow_list: ['127.0.0.1'] });
    expect((await fetch(v4, { headers: auth })).status).toBe(200);
    expect((await fetch(v6, { headers: auth })).status).toBe(403);
    await ref.control.updateMerchant(ref.merchant_id, { ip_allow_list: ['::1'] });
    expect((await fetch(v6, { headers: auth })).status).toBe(200);
  });

  it('streams the SSE feed over the socket: ": connected" at once, then events as they happen', async () => {
    const ref = await start();
    const controller = new AbortController();
    const res = await api(ref, '/api/v1/public/events', { signal: controller.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const readUntil = async (needle: string) => {
      while (!text.includes(needle)) {
        const { done, value } = await reader.read();
        if (done) throw new Error(`stream ended before ${needle}`);
        text += decoder.decode(value, { stream: true });
      }
    };
    await readUntil(': connected');
    const created = await api(ref, '/api/v1/public/payments', { method: 'POST', body: '{"amount":700}' });
    const { payment } = (await created.json()) as { payment: { id: string } };
    await readUntil('event: payment.created');
    await readUntil(payment.id);
    controller.abort();
  });

  it('close() ends open SSE streams and sockets promptly', async () => {
    const ref = await startReference({ port: 0 });
    const res = await api(ref, '/api/v1/public/events');
    const reader = res.body!.getReader();
    await reader.read(); // ': connected'
    // A stream left open would hold close() (or the read below) past the test's timeout: its pings keep it open.
    await ref.close();
    // Whatever the server wrote last, the stream then ends (cleanly or by a reset).
    const ended = (async () => {
      try {
        for (;;) if ((await reader.read()).done) return 'done';
      } catch {
        return 'reset';
      }
    })();
    expect(['done', 'reset']).toContain(await ended);
    await expect(fetch(`${ref.base_url}/api/v1/public/banks/sbp`)).rejects.toThrow();
    await ref.close(); // twice is fine
  });

  it("with clock 'manual' the service clock stands still until advanced", async () => {
    const ref = await start({ clock: 'manual' });
    expect(ref.clock.mode).toBe('manual');
    const admin = { authorization: `Bearer ${ref.admin_token}` };
    const clock1 = (await (await fetch(`${ref.base_url}/_simulator/clock`, { headers: admin })).json()) as {
      now: string;
      mode: string;
    };
    expect(clock1.mode).toBe('manual');
    const { payment } = (await (
      await api(ref, '/api/v1/public/payments', { method: 'POST', body: '{"amount":500}' })
    ).json()) as { payment: { id: string; created_at: string } };
    expect(payment.created_at).toBe(clock1.now);

    const advanced = await fetch(`${ref.base_url}/_simulator/clock/advance`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'application/json' },
      body: JSON.stringify({ seconds: 3 * 60 * 60 }),
    });
    expect(advanced.status).toBe(200);
    const got = (await (await api(ref, `/api/v1/public/payments/${payment.id}`)).json()) as {
      status: string;
    };
    expect(got.status).toBe('expired');
  });

  it('rejects with a clear message when the port is taken', async () => {
    const first = await start();
    const port = Number(new URL(first.base_url).port);
    await expect(startReference({ port })).rejects.toThrow(/already in use/);
  });

  it('rejects a port out of range before binding anything', async () => {
    await expect(startReference({ port: 70000 })).rejects.toThrow(RangeError);
    await expect(startReference({ port: 1.5 })).rejects.toThrow(/integer from 0 to 65535, got 1.5/);
    await expect(startReference({ port: '4010' as unknown as number })).rejects.toThrow(/got "4010"/);
  });
});

describe('startReference: hostile bodies over a real socket', () => {
  it('answers a body over 1 MiB with 400 (payload too large) and the error body, and keeps serving', async () => {
    const ref = await start();
    const { request } = await import('node:http');
    const big = Buffer.alloc(2 * 1024 * 1024, 0x20);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        `${ref.base_url}/api/v1/public/payments`,
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${ref.api_key}`,
            'content-type': 'application/json',
            'content-length': String(big.length),
          },
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (c: string) => {
            body += c;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      // The server may answer and hang up before the whole body is sent; that is the point.
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
      });
      req.end(big);
    });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({
      error: { code: expect.any(String), message: expect.any(String) },
    });
    expect(ref.stats().payments).toBe(0);
    expect((await api(ref, '/api/v1/public/banks/sbp')).status).toBe(200);
  });

  it('answers a chunked body over 1 MiB (no Content-Length) with 400 too', async () => {
    const ref = await start();
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 2 * 1024 * 1024) return controller.close();
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const res = await fetch(`${ref.base_url}/api/v1/public/payments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ref.api_key}`, 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit).catch((error: Error) => error);
    // undici may see the early answer or the reset, depending on timing; the service must not have read it all.
    if (res instanceof Response) expect(res.status).toBe(400);
    expect(ref.stats().payments).toBe(0);
    expect((await api(ref, '/api/v1/public/banks/sbp')).status).toBe(200);
  });
});
