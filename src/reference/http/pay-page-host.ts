/**
 * Whether a request to the buyer's page names a host the page is served under. The page acts on a payment with no
 * session and no cookie, so a page of another site whose name the attacker's DNS points at this machine (DNS
 * rebinding) would be "same-origin" to the browser and pass the cross-site check: its `Host` is what gives it away.
 */

/** A dotted IPv4 address or a bracketed IPv6 one, as a WHATWG URL writes a host (`0x7f.1` is `127.0.0.1` there). */
const IP_LITERAL = /^(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:.]+\])$/;

/**
 * The names a page is served under, as a WHATWG URL writes them (lower-case, punycode) and without a trailing dot;
 * IP literals and `localhost` need no listing. Throws a TypeError naming an entry that is no host name (a URL, a
 * port, a path, an empty string).
 *
 * @example hostNames(['PSP', 'pay.example.test.']) // ['psp', 'pay.example.test']
 */
export function hostNames(names: readonly string[]): string[] {
  return names.map((name) => {
    let host = '';
    // A port, a path, a user or a scheme would each parse as something else: refuse them rather than guess.
    if (!/[/?#@\s:\\]/.test(name)) {
      try {
        host = new URL(`http://${name}/`).hostname.replace(/\.$/, '');
      } catch {
        host = '';
      }
    }
    if (!host)
      throw new TypeError(`publicHost: ${JSON.stringify(name)} is not a host name (no scheme, port or path)`);
    return host;
  });
}

/**
 * True when `hostname` (a WHATWG URL's, so lower-cased and with IPv4 normalised) is one the page serves: an IP
 * address (a rebinding page always has a name), `localhost`, or one of `names` (from {@link hostNames}).
 *
 * @example isServedHost('evil.example', ['psp']) // false
 */
export function isServedHost(hostname: string, names: readonly string[]): boolean {
  const host = hostname.replace(/\.$/, '');
  return IP_LITERAL.test(host) || host === 'localhost' || names.includes(host);
}
