import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeHtml, formatMoney } from '../../../src/reference/http/pay-page-format.js';
import { paymentPage } from '../../../src/reference/http/pay-page-html.js';

const ID = '6f1c9a52-3b7e-4d8a-9c1f-2e5b7a9d0c13';

/** The page's element structure: every tag name in order, with every attribute name. */
function structure(html: string): string[] {
  return [
    ...html.matchAll(/<\/?([a-zA-Z][\w-]*)((?:\s+[\w-]+(?:=(?:"[^"]*"|'[^']*'|[^\s>]+))?)*)\s*\/?>/g),
  ].map(
    (m) =>
      `${m[1]}[${[...(m[2] ?? '').matchAll(/\s([\w-]+)(?:=(?:"[^"]*"|'[^']*'|[^\s>]+))?/g)].map((a) => a[1]).join(',')}]`,
  );
}

const decodeEntities = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&#96;/g, '`')
    .replace(/&amp;/g, '&');

// Strings that lean on HTML syntax, plus arbitrary unicode.
const hostile = fc.oneof(
  fc.string({
    unit: fc.constantFrom('<', '>', '"', "'", '`', '&', '/', '=', ' ', 'a', 's', 'c', 'r', 'i', 'p', 't'),
  }),
  fc.string({ unit: 'grapheme' }),
  fc.constantFrom(
    '<script>alert(1)</script>',
    '"><img src=x onerror=alert(1)>',
    "' onmouseover='x",
    '</dd></dl>',
  ),
);

describe('pay page under hostile input (property)', () => {
  it('escaping round-trips and leaves no HTML-significant character', () => {
    fc.assert(
      fc.property(hostile, (s) => {
        const escaped = escapeHtml(s);
        expect(escaped).not.toMatch(/[<>"'`]/);
        expect(decodeEntities(escaped)).toBe(s);
      }),
    );
  });

  it('order_id, description, currency and the planned outcome never change the page structure', () => {
    const baseline = structure(
      paymentPage({
        id: ID,
        amount: 1,
        currency: 'RUB',
        order_id: 'o',
        description: 'd',
        status: 'pending',
        return_url: null,
        simulator: 'succeeded',
      }),
    );
    fc.assert(
      fc.property(
        hostile,
        hostile,
        hostile,
        hostile,
        fc.integer({ min: 0, max: 2 ** 53 - 1 }),
        (o, d, c, sim, amount) => {
          const html = paymentPage({
            id: ID,
            amount,
            currency: c,
            order_id: o,
            description: d,
            status: 'pending',
            return_url: null,
            simulator: sim,
          });
          expect(structure(html)).toEqual(baseline);
          expect(html).toContain(escapeHtml(o));
          expect(html).toContain(escapeHtml(d));
          expect(html).toContain(escapeHtml(formatMoney(amount, c)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a hostile status or return_url never adds elements or attributes either', () => {
    const render = (status: string, returnUrl: string | null) =>
      paymentPage({
        id: ID,
        amount: 100,
        currency: 'RUB',
        order_id: null,
        description: null,
        status,
        return_url: returnUrl,
        simulator: null,
      });
    const withLink = structure(render('succeeded', 'https://shop.example/'));
    const withoutLink = structure(render('weird', null));
    fc.assert(
      fc.property(hostile, hostile, (status, path) => {
        const html = render(status, `https://shop.example/${path}`);
        // Any non-pending status renders the final layout; the link is there when the URL parses as http(s).
        const shape = structure(html);
        expect([withLink, withoutLink]).toContainEqual(shape);
      }),
      { numRuns: 300 },
    );
  });
});
