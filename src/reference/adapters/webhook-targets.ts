import { lookup as dnsLookup } from 'node:dns/promises';
import { parseAddress } from '../domain/ip-allow.js';
import { isPublicAddress } from '../webhooks/endpoints.js';

/** Resolves a host name to every address it has, as `dns.promises.lookup(name, { all: true })` does. */
export type Lookup = (hostname: string, options: { all: true }) => Promise<Array<{ address: string }>>;

/**
 * Whether `host` (a `--host` value) is a loopback address or `localhost`: only then is the reference reachable from
 * this machine alone, and its webhooks may go to private and loopback targets by default.
 */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  return parseAddress(host)?.range() === 'loopback';
}

/**
 * Wraps what delivers webhooks so that it POSTs only to public addresses: a URL whose host is a private, loopback,
 * link-local or other non-public address, or a name that resolves to one, is refused before any connection (the
 * attempt fails and the delivery log says why). For a reference that listens beyond loopback, where anyone with an
 * API key sets `webhook_url`. A name is resolved here and again by the fetch, so a name whose answers change between
 * the two (DNS rebinding) can still slip through; run such a reference where the network stops it too.
 *
 * @example
 * createReference({ webhookFetch: publicTargetsOnly((url, init) => fetch(url, init)) });
 */
export function publicTargetsOnly(inner: typeof fetch, lookup: Lookup = dnsLookup): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const host = url.hostname;
    const literal = parseAddress(host) !== undefined;
    const addresses = literal
      ? [host]
      : isLoopbackHost(host)
        ? ['127.0.0.1']
        : (await lookup(host, { all: true })).map((a) => a.address);
    if (addresses.length === 0 || !addresses.every(isPublicAddress)) {
      throw new TypeError(
        `private webhook target refused: ${host} is not a public address (start the reference with --allow-private-webhooks to allow it)`,
      );
    }
    return inner(input, init);
  };
}
