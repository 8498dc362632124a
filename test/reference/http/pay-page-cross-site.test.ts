import { afterEach, describe, expect, it } from 'vitest';
import { BASE, setup } from '../helpers.js';

// The buyer's page has no session: a form on another site could pay or decline a payment behind the buyer's back.
// A POST the browser marks as cross-site (Sec-Fetch-Site, else Origin) is refused with a 403 page and changes
// nothing; the page's own form, and requests from no browser at all, still act.

let env: ReturnType<typeof setup>;
afterEach(() => env?.ref.close());

async function post(id: string, action: 'pay' | 'decline', headers: Record<string, string>, lang = '') {
  const res = await env.ref.fetch(
    new Request(`${BASE}/pay/${id}/${action}${lang}`, { method: 'POST', headers }),
  );
  return { status: res.status, type: res.headers.get('content-type'), html: await res.text() };
}

const status = async (id: string) => (await env.call(`/payments/${id}`)).body.status as string;

describe('buyer page: a cross-site POST', () => {
  it.each([
    ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' }],
    // A sibling host is another site for a page with no session to share.
    ['Sec-Fetch-Site: same-site', { 'sec-fetch-site': 'same-site', origin: 'http://shop.ref.test' }],
    ['Origin of another site, no Sec-Fetch-Site', { origin: 'https://evil.example' }],
    ['Origin: null (a sandboxed or data: page)', { origin: 'null' }],
    ['Sec-Fetch-Site: cross-site despite our Origin', { 'sec-fetch-site': 'cross-site', origin: BASE }],
  ])('%s: 403 page naming why, and the payment stays pending', async (_, headers) => {
    env = setup();
    const { payment } = await env.createPayment();
    for (const action of ['pay', 'decline'] as const) {
      const r = await post(payment.id, action, headers, '?lang=en');
      expect(r.status).toBe(403);
      expect(r.type).toContain('text/html');
      expect(r.html).toContain('This request came from another site and was not carried out');
      // The page itself, with its own buttons, whose forms reach /pay/{id}/... from the action's URL.
      expect(r.html).toContain(`<form method="post" action="../${payment.id}/pay?lang=en">`);
      expect(r.html).toContain(`<form method="post" action="../${payment.id}/decline?lang=en">`);
    }
    expect(await status(payment.id)).toBe('pending');
    const ru = await post(payment.id, 'pay', headers);
    expect(ru.status).toBe(403);
    expect(ru.html).toContain('Запрос пришёл с другого сайта');
    expect(await status(payment.id)).toBe('pending');
  });

  it('an unknown payment stays a 404 page', async () => {
    env = setup();
    const r = await post('00000000-0000-4000-8000-000000000000', 'pay', { 'sec-fetch-site': 'cross-site' });
    expect(r.status).toBe(404);
  });
});

describe('buyer page: its own POST still acts', () => {
  it.each([
    [
      'Sec-Fetch-Site: same-origin (the page\u2019s own form)',
      { 'sec-fetch-site': 'same-origin', origin: 'null' },
    ],
    ['Sec-Fetch-Site: none (typed by the user)', { 'sec-fetch-site': 'none' }],
    ['our Origin, no Sec-Fetch-Site (an older browser)', { origin: BASE }],
    ['no browser headers at all (curl, a test)', {}],
  ])('%s: 303 and the payment moves', async (_, headers) => {
    env = setup();
    const { payment } = await env.createPayment();
    const r = await post(payment.id, 'pay', headers);
    expect(r.status).toBe(303);
    expect(await status(payment.id)).toBe('succeeded');
  });

  it('behind a proxy: the public URL\u2019s origin is the page\u2019s own too', async () => {
    env = setup({ publicUrl: 'https://pay.example.test' });
    const { payment, payment_url } = await env.createPayment();
    expect(payment_url).toMatch(/^https:\/\/pay\.example\.test\/pay\//);
    expect((await post(payment.id, 'decline', { origin: 'https://pay.example.test' })).status).toBe(303);
    expect(await status(payment.id)).toBe('failed');
  });
});
