import type { PageLang } from './pay-page-text.js';

/**
 * Text helpers of the buyer's page: HTML escaping and money formatting. Web standards only (Intl), so the page
 * renders the same under Node, Deno, Bun and msw.
 */

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/**
 * Escapes a string for HTML text and for quoted attribute values. Every value that reaches the page from a
 * request (order_id, description, ids, messages) passes through here.
 */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`]/g, (c) => HTML_ESCAPES[c] ?? c);
}

/** ISO 4217 minor-unit digits of `currency` (2 for RUB, 0 for JPY, 3 for KWD), or null for a code Intl rejects. */
function currencyDigits(code: string): number | null {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions()
      .maximumFractionDigits as number;
  } catch {
    return null;
  }
}

/** `12345` with 2 digits -> `"123.45"`, exactly (string arithmetic, so int64-sized amounts keep every digit). */
function minorToDecimal(amount: number, digits: number): string {
  const negative = amount < 0;
  // BigInt prints every digit of large integers, where String() would switch to exponent notation past 1e21.
  const raw = (Number.isFinite(amount) ? BigInt(Math.abs(Math.trunc(amount))) : 0n).toString();
  if (digits === 0) return (negative ? '-' : '') + raw;
  const padded = raw.padStart(digits + 1, '0');
  return `${negative ? '-' : ''}${padded.slice(0, -digits)}.${padded.slice(-digits)}`;
}

/** Russian: `1 500,00 ₽`; English: `₽1,500.00` (the narrow symbol, not `RUB 1,500.00`). */
const LOCALES: Record<PageLang, { locale: string; display: 'symbol' | 'narrowSymbol' }> = {
  ru: { locale: 'ru-RU', display: 'symbol' },
  en: { locale: 'en-GB', display: 'narrowSymbol' },
};

/**
 * Formats an amount in minor units with its currency, in the page's language: `formatMoney(150000, 'RUB')` ->
 * `"1 500,00 ₽"` (with no-break spaces), `formatMoney(150000, 'RUB', 'en')` -> `"₽1,500.00"`. A code Intl does
 * not know is shown after a two-digit number: `"15,00 XYZ"`. The result is plain text: escape it before putting
 * it in HTML.
 *
 * @param lang Default `'ru'`.
 */
export function formatMoney(amount: number, currency: string, lang: PageLang = 'ru'): string {
  const code = currency.toUpperCase();
  const digits = currencyDigits(code);
  const decimal = minorToDecimal(amount, digits ?? 2);
  const { locale, display } = LOCALES[lang];
  if (digits === null) {
    const plain = new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    // Intl's string input keeps precision beyond 2^53; the cast covers lib typings that only declare number.
    return `${plain.format(decimal as unknown as number)}\u00a0${currency}`;
  }
  const formatter = new Intl.NumberFormat(locale, {
    style: 'currency',
    currency: code,
    currencyDisplay: display,
  });
  return formatter.format(decimal as unknown as number);
}

/** Only http(s) targets are followed or linked: a `javascript:` return_url must never become a link. */
export function safeReturnUrl(url: string | null): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : null;
  } catch {
    return null;
  }
}
