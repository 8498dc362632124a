import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../src/reference/domain/errors.js';
import { formatMoney } from '../../../src/reference/http/pay-page-format.js';
import { type PayPagePort, type PayPageView, payPageRoutes } from '../../../src/reference/http/pay-page.js';

const ID = '6f1c9a52-3b7e-4d8a-9c1f-2e5b7a9d0c13';
const STATUSES = ['pending', 'processing', 'succeeded', 'failed', 'expired', 'cancelled', 'refunded'];

function setup(overrides: Partial<PayPageView> = {}) {
  const view: PayPageView = {
    id: ID,
    amount: 150000,
    currency: 'RUB',
    order_id: 'ORDER-42',
    description: null,
    status: 'pending',
    return_url: null,
    simulator: 'succeeded',
    ...overrides,
  };
  const port: PayPagePort = {
    view: (id) => (id === ID ? view : undefined),
    act(id) {
      if (id !== ID) throw new DomainError(404, 'not_found', 'Payment not found.');
      if (view.status !== 'pending') throw new DomainError(409, 'not_pending', 'not pending');
      view.status = 'succeeded';
      return { status: view.status, return_url: view.return_url };
    },
  };
  const app = new Hono();
  app.route('/pay', payPageRoutes(port));
  return (path: string, acceptLanguage?: string, method = 'GET') =>
    app.request(`http://ref.test${path}`, {
      method,
      headers: acceptLanguage === undefined ? {} : { 'accept-language': acceptLanguage },
    });
}

const langOf = (html: string) => /<html lang="(\w+)">/.exec(html)?.[1];

describe("the buyer's page speaks Russian and English", () => {
  it('is Russian by default: <html lang="ru">, Russian words, the amount the Russian way', async () => {
    const res = await setup()(`/pay/${ID}`);
    expect(res.headers.get('vary')).toBe('Accept-Language');
    const html = await res.text();
    expect(langOf(html)).toBe('ru');
    expect(html).toContain('<h1 data-testid="heading">Оплатите заказ</h1>');
    expect(html).toContain('>Оплатить 1\u00a0500,00\u00a0₽</button>');
    expect(html).toContain('>Отказаться</button>');
    expect(html).toContain('<dt>Заказ</dt>');
    expect(html).toContain('Тестовый платёж');
    expect(html).not.toMatch(/Complete your payment|>Pay |Decline</);
  });

  it('is English for an English Accept-Language, with the amount the English way', async () => {
    const html = await (await setup()(`/pay/${ID}`, 'en-US,en;q=0.9')).text();
    expect(langOf(html)).toBe('en');
    expect(html).toContain('<h1 data-testid="heading">Complete your payment</h1>');
    expect(html).toContain('>Pay ₽1,500.00</button>');
    expect(html).toContain('>Awaiting payment</span>');
    expect(html).not.toMatch(/Оплатите|Отказаться/);
  });

  it.each([
    ['en', 'en'],
    ['EN-gb', 'en'],
    ['ru-RU,ru;q=0.9,en-US;q=0.8,en;q=0.7', 'ru'],
    ['de-DE, en;q=0.5, ru;q=0.4', 'en'], // the best language the page has, not the first listed
    ['fr;q=1, ru;q=0.3, en;q=0.7', 'en'], // ordered by q, not by position
    ['en;q=0.2, ru;q=0.9', 'ru'],
    ['en ; q=0.8 , de', 'en'], // whitespace around the separators
    ['en;q=0', 'ru'], // q=0: not acceptable, so the default
    ['de, fr', 'ru'],
    ['*', 'ru'],
    ['', 'ru'],
    ['garbage;q=abc,=,;q', 'ru'],
  ])('Accept-Language %j gives %s', async (header, lang) => {
    const html = await (await setup()(`/pay/${ID}`, header)).text();
    expect(langOf(html)).toBe(lang);
  });

  it('?lang=ru|en forces the language over Accept-Language; any other value is ignored', async () => {
    const request = setup();
    expect(langOf(await (await request(`/pay/${ID}?lang=en`, 'ru')).text())).toBe('en');
    expect(langOf(await (await request(`/pay/${ID}?lang=RU`, 'en')).text())).toBe('ru');
    expect(langOf(await (await request(`/pay/${ID}?lang=de`, 'en')).text())).toBe('en');
    expect(langOf(await (await request(`/pay/${ID}?lang=%3Cb%3E`)).text())).toBe('ru');
  });

  it('a forced language stays through the buttons: forms and the redirect after an action carry ?lang', async () => {
    const request = setup();
    const forced = await (await request(`/pay/${ID}?lang=en`, 'ru')).text();
    expect(forced).toContain(`action="./${ID}/pay?lang=en"`);
    expect(forced).toContain(`action="./${ID}/decline?lang=en"`);
    const paid = await request(`/pay/${ID}/pay?lang=en`, 'ru', 'POST');
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe(`/pay/${ID}?lang=en`);

    const plain = setup();
    expect(await (await plain(`/pay/${ID}`, 'en')).text()).toContain(`action="./${ID}/pay"`);
    expect((await plain(`/pay/${ID}/pay`, 'en', 'POST')).headers.get('location')).toBe(`/pay/${ID}`);
  });

  it.each(['ru', 'en'])(
    'words every status for the buyer in %s, keeping the raw value for machines only',
    async (lang) => {
      const seen = new Set<string>();
      for (const status of STATUSES) {
        const html = await (await setup({ status, simulator: null })(`/pay/${ID}?lang=${lang}`)).text();
        const badge = new RegExp(`data-status="${status}">([^<]+)</span>`).exec(html)?.[1];
        expect(badge, status).toBeDefined();
        expect(badge).not.toBe(status);
        seen.add(badge!);
        // In Russian the raw (English) status appears only inside attributes (class, data-status), never as text.
        const text = html.replace(/<style>[^<]*<\/style>/, '').replace(/<[^>]*>/g, ' ');
        if (lang === 'ru') expect(text, status).not.toMatch(/[a-z]{4,}/);
      }
      expect(seen.size).toBe(STATUSES.length);
    },
  );

  it('a status outside the enum is worded neutrally, not shown raw', async () => {
    const html = await (await setup({ status: 'weird' })(`/pay/${ID}`)).text();
    expect(html).toContain('data-status="weird">Неизвестен</span>');
  });

  it('the 404 page and a refused second press are in the buyer language too', async () => {
    const request = setup();
    const ru = await request('/pay/00000000-0000-4000-8000-000000000000');
    expect(ru.status).toBe(404);
    const ruHtml = await ru.text();
    expect(langOf(ruHtml)).toBe('ru');
    expect(ruHtml).toContain('Платёж не найден');
    const en = await (await request('/pay/nope', 'en')).text();
    expect(langOf(en)).toBe('en');
    expect(en).toContain('Payment not found');

    await request(`/pay/${ID}/pay`, undefined, 'POST');
    const again = await request(`/pay/${ID}/decline`, undefined, 'POST');
    expect(again.status).toBe(409);
    expect(await again.text()).toContain('Платёж уже не ожидает оплаты: оплачен. Ничего не изменилось.');
  });

  it('formats money per language', () => {
    expect(formatMoney(150000, 'RUB', 'ru')).toBe('1\u00a0500,00\u00a0₽');
    expect(formatMoney(150000, 'RUB', 'en')).toBe('₽1,500.00');
    expect(formatMoney(1500, 'JPY', 'en')).toBe('¥1,500');
    expect(formatMoney(-1, 'USD', 'en')).toBe('-$0.01');
    expect(formatMoney(1500, 'not a code', 'en')).toBe('15.00\u00a0not a code');
    expect(formatMoney(9007199254740991, 'RUB', 'en')).toBe('₽90,071,992,547,409.91');
  });
});
