import { describe, expect, it } from 'vitest';
import { PAYMENT_OUTCOMES } from '../../../src/reference/domain/outcomes.js';
import { notFoundPage, paymentPage } from '../../../src/reference/http/pay-page-html.js';
import { PAGE_LANGS, TEXT } from '../../../src/reference/http/pay-page-text.js';

// "Исход при оплате: succeeded": a word of the other language on the page. Every word the page itself writes
// (not the merchant's data) is in the page's language, for every status, every planned outcome and every notice.

const STATUSES = ['pending', 'processing', 'succeeded', 'failed', 'expired', 'cancelled', 'refunded', 'odd'];
// The alphabet the other language would show in.
const FOREIGN = { ru: /[A-Za-z]/, en: /[А-Яа-яЁё]/ } as const;

/** What a reader sees: the text of the body, without the stylesheet, tags and attributes. */
function visibleText(html: string): string {
  return html
    .replace(/<style>[\s\S]*?<\/style>/, '')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&[a-z#0-9]+;/gi, ' ');
}

describe('the buyer page speaks one language', () => {
  it.each(PAGE_LANGS.map((l) => [l]))('%s: every status, outcome and notice', (lang) => {
    for (const status of STATUSES) {
      for (const simulator of [...PAYMENT_OUTCOMES, 'a_new_outcome', null]) {
        for (const notice of [undefined, TEXT[lang].crossSite]) {
          const html = paymentPage(
            {
              // Digits only, like the amount: no letters of either alphabet come from the data.
              id: '00000000-0000-4000-8000-000000000000',
              amount: 249_900,
              currency: 'RUB',
              order_id: '1042',
              description: null,
              status,
              return_url: status === 'pending' ? null : 'https://shop.example/back',
              simulator,
              shop: '24/7',
            },
            { lang, ...(notice ? { notice } : {}) },
          );
          const text = visibleText(html);
          expect(text, `${status} / ${simulator}`).not.toMatch(FOREIGN[lang]);
          expect(text).toContain('24/7');
          if (status === 'pending' && simulator !== null)
            expect(text).toContain(TEXT[lang].planned[0].trim());
        }
      }
    }
    expect(visibleText(notFoundPage(lang))).not.toMatch(FOREIGN[lang]);
  });
});
