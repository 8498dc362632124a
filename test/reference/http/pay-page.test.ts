import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../src/reference/domain/errors.js';
import { escapeHtml, formatMoney } from '../../../src/reference/http/pay-page-format.js';
import { type PayPagePort, type PayPageView, payPageRoutes } from '../../../src/reference/http/pay-page.js';

const ID = '6f1c9a52-3b7e-4d8a-9c1f-2e5b7a9d0c13';

function setup(overrides: Partial<PayPageView> = {}, outcome = 'succeeded') {
  const payments = new Map<string, PayPageView>();
  payments.set(ID, {
    id: ID,
    amount: 150000,
    currency: 'RUB',
    order_id: 'ORDER-42',
    description: 'Two coffees',
    status: 'pending',
    return_url: null,
    simulator: outcome,
    ...overrides,
  });
  const acts: Array<[string, string]> = [];
  const port: PayPagePort = {
    view: (id) => payments.get(id),
    act(id, action) {
      const p = payments.get(id);
      if (!p) throw new DomainError(404, 'not_found', 'Payment not found.');
      if (p.status !== 'pending')
        throw new DomainError(409, 'not_pending', `The payment is already ${p.status}.`);
      acts.push([id, action]);
      p.status = action === 'pay' ? outcome : 'failed';
      return { status: p.status, return_url: p.return_url };
    },
  };
  const app = new Hono();
  app.route('/pay', payPageRoutes(port));
  // No Accept-Language: the page's own choice (Russian).
  const raw = (path: string, init?: RequestInit) => app.request(`http://ref.test${path}`, init);
  // An English-speaking browser: most tests below assert the English wording.
  const request = (path: string, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    if (!headers.has('accept-language')) headers.set('accept-language', 'en-GB,en;q=0.9');
    return raw(path, { ...init, headers });
  };
  return { app, request, raw, acts, payments };
}

describe('buyer page: GET /pay/{id}', () => {
  it('shows amount with currency, order, description, status and both buttons for a pending payment', async () => {
    const { raw } = setup();
    const res = await raw(`/pay/${ID}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.headers.get('cache-control')).toBe('no-store');
    const html = await res.text();
    expect(html).toContain('1\u00a0500,00\u00a0₽');
    expect(html).toContain('ORDER-42');
    expect(html).toContain('Two coffees');
    expect(html).toMatch(/<span[^>]*id="status"[^>]*data-status="pending"[^>]*>Ожидает оплаты<\/span>/);
    expect(html).toMatch(new RegExp(`<form method="post" action="\\./${ID}/pay"><button[^>]*id="pay"`));
    expect(html).toMatch(
      new RegExp(`<form method="post" action="\\./${ID}/decline"><button[^>]*id="decline"`),
    );
    expect(html).toContain('data-testid="pay"');
    expect(html).not.toMatch(/<script|<link|src=|url\(/i);
  });

  it('escapes HTML in order_id and description (attacker-controlled)', async () => {
    const evil = '<script>alert("x")</script>&\'`';
    const { request } = setup({ order_id: evil, description: '<img src=x onerror=alert(1)>' });
    const html = await (await request(`/pay/${ID}`)).text();
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;&#96;');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('escapes an odd currency code and the planned outcome', async () => {
    const { request } = setup({ currency: '<b>' }, '<i>x</i>');
    const html = await (await request(`/pay/${ID}`)).text();
    expect(html).not.toContain('<b>');
    expect(html).not.toContain('<i>');
    expect(html).toContain('&lt;b&gt;');
  });

  it('tags a test payment with its planned outcome, and a live one (no simulator) as the reference', async () => {
    const test = await (await setup().request(`/pay/${ID}`)).text();
    expect(test).toContain('Test payment');
    expect(test).toMatch(
      /Planned outcome when paid: <strong data-testid="simulator" data-outcome="succeeded">the bank confirms the payment<\/strong>/,
    );
    const live = await (await setup({ simulator: null }).request(`/pay/${ID}`)).text();
    expect(live).not.toContain('Test payment');
    expect(live).not.toContain('Planned outcome');
    expect(live).toContain('id="pay"');
  });

  it('omits missing order and description rows', async () => {
    const { request } = setup({ order_id: null, description: null });
    const html = await (await request(`/pay/${ID}`)).text();
    expect(html).not.toContain('data-testid="order-id"');
    expect(html).not.toContain('data-testid="description"');
  });

  it('shows a final status without buttons, with a link back to an http(s) return_url', async () => {
    const { request } = setup({ status: 'succeeded', return_url: 'https://shop.example/thanks?o=1&b=2' });
    const html = await (await request(`/pay/${ID}`)).text();
    expect(html).toContain('Payment successful');
    expect(html).not.toContain('id="pay"');
    expect(html).not.toContain('id="decline"');
    expect(html).toContain('href="https://shop.example/thanks?o=1&amp;b=2"');
  });

  it('a processing payment refreshes itself (no JavaScript) and offers no buttons', async () => {
    const { request } = setup({ status: 'processing' });
    const html = await (await request(`/pay/${ID}`)).text();
    expect(html).toContain('<meta http-equiv="refresh" content="3">');
    expect(html).toContain('being processed');
    expect(html).not.toContain('id="pay"');
    const pending = await (await setup().request(`/pay/${ID}`)).text();
    expect(pending).not.toContain('http-equiv="refresh"');
  });

  it('tells the buyer to wait while processing, not to close the page; a settled payment may be closed', async () => {
    for (const return_url of [null, 'https://shop.example/back']) {
      const processing = await (
        await setup({ status: 'processing', return_url }).request(`/pay/${ID}`)
      ).text();
      expect(processing).toContain('this page updates by itself');
      expect(processing).not.toContain('You can close this page');
    }
    const settled = await (await setup({ status: 'succeeded' }).request(`/pay/${ID}`)).text();
    expect(settled).toContain('You can close this page');
    expect(settled).not.toContain('updates by itself');
  });

  it('never links a javascript: return_url', async () => {
    const { request } = setup({ status: 'failed', return_url: 'javascript:alert(1)' });
    const html = await (await request(`/pay/${ID}`)).text();
    expect(html).toContain('Payment declined');
    expect(html).not.toContain('javascript:');
  });

  it('answers an unknown id with a friendly 404 page', async () => {
    const { request } = setup();
    for (const path of [
      '/pay/00000000-0000-4000-8000-000000000000',
      '/pay/%3Cscript%3E',
      '/pay/a/b/c',
      '/pay',
    ]) {
      const res = await request(path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const html = await res.text();
      expect(html).toContain('Payment not found');
      expect(html).not.toContain('<script>');
    }
  });

  it('answers HEAD like GET without a body', async () => {
    const { request } = setup();
    const res = await request(`/pay/${ID}`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
  });
});

describe('buyer page: POST /pay/{id}/pay and /decline', () => {
  it('pays, then redirects 303 back to the page, which shows the planned outcome without buttons', async () => {
    const { request, acts } = setup();
    const res = await request(`/pay/${ID}/pay`, { method: 'POST', redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/pay/${ID}`);
    expect(acts).toEqual([[ID, 'pay']]);
    const html = await (await request(`/pay/${ID}`)).text();
    expect(html).toMatch(/id="status"[^>]*data-status="succeeded"[^>]*>Paid</);
    expect(html).not.toContain('id="pay"');
  });

  it('declines and redirects 303 to return_url when there is one', async () => {
    const { request, acts } = setup({ return_url: 'https://shop.example/back' });
    const res = await request(`/pay/${ID}/decline`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('https://shop.example/back');
    expect(acts).toEqual([[ID, 'decline']]);
  });

  it('does not redirect to a non-http return_url', async () => {
    const { request } = setup({ return_url: 'javascript:alert(1)' });
    const res = await request(`/pay/${ID}/pay`, { method: 'POST' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/pay/${ID}`);
  });

  it('a second click shows the page with the refusal (409) and changes nothing', async () => {
    const { request, acts } = setup();
    await request(`/pay/${ID}/pay`, { method: 'POST' });
    const res = await request(`/pay/${ID}/decline`, { method: 'POST' });
    expect(res.status).toBe(409);
    const html = await res.text();
    expect(html).toContain('This payment is no longer awaiting payment: paid. Nothing changed.');
    expect(html).toMatch(/id="status"[^>]*data-status="succeeded"[^>]*>Paid</);
    expect(acts).toHaveLength(1);
  });

  it('acting on an unknown payment gives the 404 page; an unknown action too', async () => {
    const { request, acts } = setup();
    expect((await request('/pay/00000000-0000-4000-8000-000000000000/pay', { method: 'POST' })).status).toBe(
      404,
    );
    expect((await request(`/pay/${ID}/refund`, { method: 'POST' })).status).toBe(404);
    expect((await request(`/pay/${ID}/pay`, { method: 'GET' })).status).toBe(404);
    expect(acts).toHaveLength(0);
  });

  it('lets errors other than DomainError reach the app', async () => {
    const app = new Hono();
    app.route(
      '/pay',
      payPageRoutes({
        view: () => undefined,
        act: () => {
          throw new TypeError('bug');
        },
      }),
    );
    app.onError(() => new Response('handled', { status: 500 }));
    const res = await app.request(`http://ref.test/pay/${ID}/pay`, { method: 'POST' });
    expect(res.status).toBe(500);
    expect(await res.text()).toBe('handled');
  });
});

describe('pay page formatting', () => {
  it('formats minor units with the currency exponent', () => {
    expect(formatMoney(150000, 'RUB')).toBe('1\u00a0500,00\u00a0₽');
    expect(formatMoney(1, 'USD')).toBe('0,01\u00a0$');
    expect(formatMoney(1500, 'JPY')).toBe('1\u00a0500\u00a0¥');
    expect(formatMoney(1234, 'KWD')).toContain('1,234');
    expect(formatMoney(9007199254740991, 'RUB')).toBe('90\u00a0071\u00a0992\u00a0547\u00a0409,91\u00a0₽');
    expect(formatMoney(1500, 'not a code')).toBe('15,00\u00a0not a code');
  });

  it('escapes every HTML-significant character', () => {
    expect(escapeHtml(`<a href="x" title='y'>&\`</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&#96;&lt;/a&gt;',
    );
  });
});
