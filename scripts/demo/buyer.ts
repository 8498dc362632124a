/**
 * Plays the buyer without a browser: loads the payment page, finds the form holding the Pay button and submits
 * it the way a browser would (application/x-www-form-urlencoded, hidden fields and the button's name/value).
 */

export interface BuyerResult {
  /** Status of the form POST (a redirect to return_url or the page again). */
  status: number;
  /** Where the page sent the buyer, when it redirected. */
  location: string | null;
}

const attr = (tag: string, name: string): string | undefined => {
  const m = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(tag);
  return m ? (m[1] ?? m[2] ?? m[3]) : undefined;
};

const decode = (s: string) =>
  s
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');

/** The form that contains the element with id `buttonId`, as the request a browser would send for it. */
export function formSubmission(
  html: string,
  pageUrl: string,
  buttonId = 'pay',
): { action: string; method: string; body: URLSearchParams } {
  for (const m of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)) {
    const [, formAttrs = '', inner = ''] = m;
    const controls = [...inner.matchAll(/<(input|button)\b[^>]*>/gi)].map((c) => c[0]);
    const button = controls.find((c) => attr(c, 'id') === buttonId);
    if (!button) continue;
    const body = new URLSearchParams();
    for (const c of controls) {
      const name = attr(c, 'name');
      if (!name) continue;
      const type = (
        attr(c, 'type') ?? (c.toLowerCase().startsWith('<button') ? 'submit' : 'text')
      ).toLowerCase();
      if ((type === 'submit' || type === 'button') && c !== button) continue;
      body.append(decode(name), decode(attr(c, 'value') ?? ''));
    }
    const action = new URL(decode(attr(formAttrs, 'action') ?? ''), pageUrl).toString();
    return { action, method: (attr(formAttrs, 'method') ?? 'get').toUpperCase(), body };
  }
  throw new Error(`no form with a #${buttonId} button on ${pageUrl}`);
}

/** Opens the page and presses Pay. */
export async function payAsBuyer(paymentUrl: string, buttonId = 'pay'): Promise<BuyerResult> {
  const page = await fetch(paymentUrl);
  if (!page.ok) throw new Error(`payment page answered ${page.status}`);
  const form = formSubmission(await page.text(), paymentUrl, buttonId);
  const res = await fetch(form.action, {
    method: form.method,
    body: form.method === 'GET' ? undefined : form.body,
    redirect: 'manual',
  });
  await res.arrayBuffer();
  if (res.status >= 400) throw new Error(`the Pay form answered ${res.status}`);
  return { status: res.status, location: res.headers.get('location') };
}
