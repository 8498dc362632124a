/**
 * Whether a POST to the buyer's page came from the page itself. The page has no session and no cookie, so the
 * browser's own word on where a form was sent from is what keeps another site from paying or declining a
 * payment behind the buyer's back (a forged form that auto-submits).
 */

/**
 * True when the browser says the request came from another site: `Sec-Fetch-Site` other than `same-origin` or
 * `none` (the buyer typed or bookmarked the URL), or, from a browser that does not send it, an `Origin` that is
 * none of the page's own origins (`Origin: null` included: an opaque origin is not the page). A request with
 * neither header is no browser's form (curl, a test, the package's own `pay()`), so it is not refused.
 *
 * @param ownOrigins The origins the page is served under: the request's own, and the public URL's behind a proxy.
 * @example isCrossSite(c.req.raw, [new URL(c.req.url).origin]) // true for a form posted from evil.example
 */
export function isCrossSite(request: Request, ownOrigins: readonly string[]): boolean {
  const site = request.headers.get('sec-fetch-site');
  if (site !== null) return site !== 'same-origin' && site !== 'none';
  const origin = request.headers.get('origin');
  return origin !== null && !ownOrigins.includes(origin);
}
