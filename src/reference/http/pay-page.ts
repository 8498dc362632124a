import { type Context, Hono } from 'hono';
import { languageDetector } from 'hono/language';
import { CODE } from '../../schemas/errors.js';
import { quote } from '../../internal/quote.js';
import { DomainError } from '../domain/errors.js';
import { refusalResponse } from './errors.js';
import { notFoundPage, type PayPageView, paymentPage } from './pay-page-html.js';
import { safeReturnUrl } from './pay-page-format.js';
import { isCrossSite } from './pay-page-origin.js';
import { isServedHost } from './pay-page-host.js';
import { forcedLang, PAGE_LANGS, type PageLang, statusWords, TEXT } from './pay-page-text.js';

export type { PayPageView } from './pay-page-html.js';

/**
 * What the buyer's page needs from the reference: a read of one payment and the buyer's two actions. The
 * reference core implements it over its payment store; the page itself knows nothing of the domain.
 */
export interface PayPagePort {
  /** The payment as the page shows it, or undefined when no payment has this id. */
  view(paymentId: string): PayPageView | undefined;
  /**
   * The buyer pays (the payment goes to its planned simulator outcome) or declines. Throws `DomainError`
   * (404 unknown payment, 409 not pending) and changes nothing then.
   */
  act(paymentId: string, action: 'pay' | 'decline'): { status: string; return_url: string | null };
}

// The page shows request data: forbid scripts, frames and every outside load. form-action must allow the
// 303 to the merchant's return_url, which browsers check against it.
const HTML_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' http: https:; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  // The language follows Accept-Language: a cache (were one to ignore no-store) must key on it.
  vary: 'Accept-Language',
};

/** How the routes are served. */
export interface PayPageOptions {
  /**
   * The public origin the buyer's browser sees (`createReference({ publicUrl })`), accepted as the page's own in
   * `Origin` beside the request's. Default: the request's origin only.
   */
  publicUrl?: string | undefined;
  /**
   * The host names the page is served under (`hostNames` of pay-page-host.ts), beside IP addresses, `localhost` and
   * `publicUrl`'s host. Given, a request for any other `Host` is refused with 421 `misdirected_request` before
   * anything is read or done: a page whose name was pointed at this machine (DNS rebinding) shows nothing and acts
   * on nothing. Default: every host is served (no socket, as `createReference`'s fetch, no rebinding).
   */
  hosts?: readonly string[] | undefined;
}

function html(c: Context<Env>, status: 200 | 404 | 409 | 400 | 403 | 422, body: string): Response {
  return c.body(body, status, HTML_HEADERS);
}

type Env = { Variables: { language: PageLang } };

function notFound(c: Context<Env>): Response {
  return html(c, 404, notFoundPage(c.get('language')));
}

/** `?lang=xx` when the query forced the language: forms and the redirect after an action keep it. */
function langQuery(c: Context<Env>): string {
  const forced = forcedLang(c.req.query('lang'));
  return forced ? `?lang=${forced}` : '';
}

/**
 * The buyer's page, served by the reference under `/pay` (the spec's `{pay_url}`):
 *
 * - `GET /{id}`: amount with its currency, order, description, status; Pay and Decline buttons (`#pay`,
 *   `#decline`) while the payment is pending. Self-contained HTML, no scripts, every request string escaped.
 * - `POST /{id}/pay`, `POST /{id}/decline`: acts, then answers 303 to the payment's `return_url` when it is an
 *   http(s) URL, else 303 back to `GET /{id}`, which then shows the result. A refused action (the payment is no
 *   longer pending) shows the page again with the reason, status 409. A form posted from another site
 *   (`Sec-Fetch-Site`, else `Origin`: pay-page-origin.ts) changes nothing and shows the page with the reason,
 *   status 403.
 * - Anything else, and unknown ids: a 404 page.
 * - With `hosts`, a request for a host the page is not served under: 421 `misdirected_request`, the spec's error
 *   body (pay-page-host.ts).
 *
 * Every page is in Russian or English: `?lang=ru|en` forces one (and the page's forms and redirect keep it),
 * else the best of the two by `Accept-Language` q-values (hono's language detector), else Russian (the service
 * is Russian: RUB, SBP). `<html lang>` says which.
 *
 * @example
 * ```ts
 * app.route('/pay', payPageRoutes({ view: (id) => store.view(id), act: (id, a) => store.act(id, a) }));
 * ```
 */
export function payPageRoutes(port: PayPagePort, options: PayPageOptions = {}): Hono<Env> {
  const app = new Hono<Env>();
  const publicOrigin = options.publicUrl ? new URL(options.publicUrl).origin : undefined;
  const { hosts } = options;
  if (hosts) {
    const served = publicOrigin ? [...hosts, new URL(publicOrigin).hostname] : [...hosts];
    app.use(async (c, next) => {
      const { hostname } = new URL(c.req.url);
      if (isServedHost(hostname, served)) return next();
      return refusalResponse(
        CODE.misdirected_request,
        `The buyer's page is not served under the host ${quote(hostname)}; if that is this reference's name, ` +
          'start it with --public-host (the publicHost option).',
      );
    });
  }
  app.use(
    languageDetector({
      supportedLanguages: [...PAGE_LANGS],
      fallbackLanguage: PAGE_LANGS[0],
      order: ['querystring', 'header'],
      lookupQueryString: 'lang',
      // No cookie: the page stores nothing in the buyer's browser.
      caches: false,
    }),
  );

  app.get('/:id', (c) => {
    const view = port.view(c.req.param('id'));
    return view
      ? html(c, 200, paymentPage(view, { lang: c.get('language'), query: langQuery(c) }))
      : notFound(c);
  });

  app.post('/:id/:action{pay|decline}', (c) => {
    const id = c.req.param('id');
    const action = c.req.param('action') as 'pay' | 'decline';
    const own = [new URL(c.req.url).origin, ...(publicOrigin ? [publicOrigin] : [])];
    if (isCrossSite(c.req.raw, own)) {
      const view = port.view(id);
      if (!view) return notFound(c);
      const lang = c.get('language');
      const notice = TEXT[lang].crossSite;
      return html(c, 403, paymentPage(view, { lang, query: langQuery(c), notice, atAction: true }));
    }
    let result: { status: string; return_url: string | null };
    try {
      result = port.act(id, action);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      const view = error.status === 404 ? undefined : port.view(id);
      if (!view) return notFound(c);
      const status =
        error.status === 409 || error.status === 403 || error.status === 422 ? error.status : 400;
      const lang = c.get('language');
      // A refusal the buyer can meet (a second press) is told in their language; any other in the domain's words.
      const notice =
        error.status === 409 ? TEXT[lang].notPending(statusWords(view.status, lang).badge) : error.message;
      return html(c, status, paymentPage(view, { lang, query: langQuery(c), notice }));
    }
    const target = safeReturnUrl(result.return_url);
    if (target) return c.redirect(target, 303);
    // Back to this payment's page (path without the action segment), wherever the routes are mounted.
    const path = new URL(c.req.url).pathname;
    return c.redirect(`${path.slice(0, path.length - action.length - 1)}${langQuery(c)}`, 303);
  });

  app.all('*', (c) => notFound(c));
  return app;
}
