import { escapeHtml, formatMoney, safeReturnUrl } from './pay-page-format.js';
import { outcomeWords, type PageLang, statusWords, TEXT } from './pay-page-text.js';

/** What the page shows of a payment: the `view` answer of the pay-page port. */
export interface PayPageView {
  id: string;
  amount: number;
  currency: string;
  order_id: string | null;
  description: string | null;
  status: string;
  return_url: string | null;
  simulator: string | null;
  /** The name of the shop the buyer is paying (the payment's terminal's shop). Default: not shown. */
  shop?: string | null | undefined;
}

// One stylesheet inline: the page loads nothing else, so it renders offline and under a strict CSP.
const STYLE = `
:root{color-scheme:light dark;--bg:#f3f4f8;--card:#fff;--text:#14161f;--muted:#646b7d;--line:#e4e6ee;
--accent:#3b5bfd;--accent-text:#fff;--ok:#137a3f;--ok-bg:#e3f6eb;--bad:#b42318;--bad-bg:#fde8e6;
--warn:#8a5a00;--warn-bg:#fff4d6;--info:#2b4acb;--info-bg:#e6ebff;--idle:#4b5263;--idle-bg:#eceef3}
@media (prefers-color-scheme:dark){:root{--bg:#0f1117;--card:#1a1d27;--text:#eef0f6;--muted:#9aa1b5;
--line:#2b2f3c;--accent:#6d84ff;--ok:#5fd08e;--ok-bg:#143323;--bad:#ff8a80;--bad-bg:#3a1714;--warn:#ffcc66;
--warn-bg:#3a2d0c;--info:#9db0ff;--info-bg:#1c2550;--idle:#c3c8d6;--idle-bg:#2a2e3a}}
*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;padding:24px;
background:var(--bg);color:var(--text);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{width:100%;max-width:420px;background:var(--card);border:1px solid var(--line);border-radius:16px;
padding:28px;box-shadow:0 10px 30px rgba(20,22,31,.08)}
.mode{display:inline-block;font-size:12px;font-weight:600;letter-spacing:.04em;text-transform:uppercase;
color:var(--warn);background:var(--warn-bg);border-radius:999px;padding:2px 10px;margin:0 0 16px}
h1{font-size:20px;margin:0 0 4px}
.amount{font-size:36px;font-weight:700;letter-spacing:-.01em;margin:4px 0 20px;font-variant-numeric:tabular-nums}
dl{display:grid;grid-template-columns:auto 1fr;gap:8px 16px;margin:0 0 24px;padding:16px 0 0;
border-top:1px solid var(--line)}
dt{color:var(--muted)}dd{margin:0;overflow-wrap:anywhere}
code{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace;color:var(--muted)}
.badge{display:inline-block;font-size:13px;font-weight:600;border-radius:999px;padding:1px 10px;
color:var(--idle);background:var(--idle-bg)}
.s-succeeded{color:var(--ok);background:var(--ok-bg)}.s-failed,.s-expired{color:var(--bad);background:var(--bad-bg)}
.s-pending,.s-processing{color:var(--info);background:var(--info-bg)}
.actions{display:grid;gap:10px}form{margin:0}
button,.link{display:block;width:100%;font:inherit;font-weight:600;text-align:center;text-decoration:none;
border-radius:10px;padding:12px 16px;cursor:pointer;border:1px solid var(--line);background:transparent;color:var(--text)}
button.primary,.link{background:var(--accent);border-color:var(--accent);color:var(--accent-text)}
button:hover,.link:hover{filter:brightness(1.08)}
button:focus-visible,.link:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.note{font-size:13px;color:var(--muted);margin:20px 0 0}
.notice{margin:0 0 20px;padding:12px 14px;border-radius:10px;color:var(--bad);background:var(--bad-bg)}
@media (max-width:480px){body{padding:12px;align-items:flex-start}main{padding:20px}.amount{font-size:30px}}
`;

function layout(lang: PageLang, title: string, body: string, headExtra = ''): string {
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
${headExtra}<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

const tag = (text: string) => `<p class="mode">${escapeHtml(text)}</p>`;

/** How a page is rendered: its language, and the query its links and forms carry to keep a forced one. */
export interface PageOptions {
  /** Default `'ru'`. */
  lang?: PageLang | undefined;
  /** `?lang=en` when the language was forced by the query, so that the buyer's next page keeps it. Default none. */
  query?: string | undefined;
  /** A refusal to show above the payment (plain text). */
  notice?: string | undefined;
  /**
   * The page answers an action's URL (`/pay/{id}/pay`), one segment below the page's own, so its forms must
   * reach one level up to stay relative. Default false.
   */
  atAction?: boolean | undefined;
}

/**
 * The payment page: details, and Pay / Decline while the payment is pending. The status badge carries the raw
 * status in `data-status` for machines and the buyer's words as its text.
 */
export function paymentPage(view: PayPageView, options: PageOptions = {}): string {
  const { lang = 'ru', query = '', notice, atAction = false } = options;
  const text = TEXT[lang];
  const words = statusWords(view.status, lang);
  const money = formatMoney(view.amount, view.currency, lang);
  const id = encodeURIComponent(view.id);
  const status = escapeHtml(view.status);
  const rows: string[] = [];
  if (view.shop != null)
    rows.push(`<dt>${text.shop}</dt><dd data-testid="shop">${escapeHtml(view.shop)}</dd>`);
  if (view.order_id !== null)
    rows.push(`<dt>${text.order}</dt><dd data-testid="order-id">${escapeHtml(view.order_id)}</dd>`);
  if (view.description !== null) {
    rows.push(
      `<dt>${text.description}</dt><dd data-testid="description">${escapeHtml(view.description)}</dd>`,
    );
  }
  rows.push(
    `<dt>${text.status}</dt><dd><span class="badge s-${status}" id="status" data-testid="status" data-status="${status}">${escapeHtml(words.badge)}</span></dd>`,
    `<dt>${text.payment}</dt><dd><code data-testid="payment-id">${escapeHtml(view.id)}</code></dd>`,
  );

  let tail: string;
  if (view.status === 'pending') {
    // Relative actions resolve against /pay/{id}, wherever the page is mounted.
    const q = escapeHtml(query);
    const up = atAction ? '../' : './';
    tail = `<div class="actions">
<form method="post" action="${up}${id}/pay${q}"><button class="primary" type="submit" id="pay" data-testid="pay">${escapeHtml(text.pay(money))}</button></form>
<form method="post" action="${up}${id}/decline${q}"><button type="submit" id="decline" data-testid="decline">${escapeHtml(text.decline)}</button></form>
</div>`;
    if (view.simulator !== null) {
      const [before, after] = text.planned;
      // The raw outcome for machines in data-outcome, the buyer's words as the text (as the status badge).
      tail += `\n<p class="note">${escapeHtml(before)}<strong data-testid="simulator" data-outcome="${escapeHtml(view.simulator)}">${escapeHtml(outcomeWords(view.simulator, lang))}</strong>${escapeHtml(after)}</p>`;
    }
  } else {
    const back = safeReturnUrl(view.return_url);
    // A processing payment is not settled yet, and the page refreshes itself until it is: say so, rather than
    // inviting the buyer to leave before the result.
    const note =
      view.status === 'processing'
        ? `<p class="note" data-testid="waiting">${escapeHtml(text.waiting)}</p>`
        : `<p class="note">${escapeHtml(text.canClose)}</p>`;
    tail = back
      ? `${view.status === 'processing' ? `${note}\n` : ''}<a class="link" id="return" data-testid="return" href="${escapeHtml(back)}">${escapeHtml(text.back)}</a>`
      : note;
  }

  const body = `${tag(view.simulator !== null ? text.testTag : text.referenceTag)}
${notice ? `<p class="notice" role="alert" data-testid="notice">${escapeHtml(notice)}</p>\n` : ''}<h1 data-testid="heading">${escapeHtml(words.heading)}</h1>
<p class="amount" data-testid="amount">${escapeHtml(money)}</p>
<dl>${rows.join('')}</dl>
${tail}`;
  // A processing payment settles on its own: refresh so the buyer sees the result without JavaScript.
  const refresh = view.status === 'processing' ? '<meta http-equiv="refresh" content="3">\n' : '';
  return layout(lang, `${money} · ${words.heading}`, body, refresh);
}

/** The page for an unknown payment (or a refused action without a payment), in the buyer's language. */
export function notFoundPage(lang: PageLang = 'ru'): string {
  const text = TEXT[lang];
  return layout(
    lang,
    text.notFoundTitle,
    `${tag(text.referenceTag)}
<h1 data-testid="heading">${escapeHtml(text.notFoundTitle)}</h1>
<p data-testid="message">${escapeHtml(text.notFoundMessage)}</p>`,
  );
}
