import ipaddr from 'ipaddr.js';

type Addr = ipaddr.IPv4 | ipaddr.IPv6;

/** `true` when `entry` is an IPv4 address (four-part dotted decimal), an IPv6 address, or a CIDR of either. */
export function isValidAllowEntry(entry: string): boolean {
  if (entry.includes('/')) {
    const [ip] = entry.split('/');
    return (
      ipaddr.IPv4.isValidCIDRFourPartDecimal(entry) ||
      (ipaddr.IPv6.isValidCIDR(entry) && ip !== undefined && ipaddr.IPv6.isValid(ip))
    );
  }
  return ipaddr.IPv4.isValidFourPartDecimal(entry) || ipaddr.IPv6.isValid(entry);
}

/**
 * An IP address (brackets and a zone allowed), or undefined when it is none. An IPv4 client reaching a dual-stack
 * socket shows up as ::ffff:a.b.c.d; process() turns it back into IPv4 so an IPv4 entry matches it.
 */
export function parseAddress(address: string): Addr | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const noZone = bare.replace(/%.*$/, '');
  if (!ipaddr.isValid(noZone)) return undefined;
  try {
    return ipaddr.process(noZone);
  } catch {
    return undefined;
  }
}

function matches(addr: Addr, entry: string): boolean {
  try {
    if (entry.includes('/')) {
      const [net, bits] = ipaddr.parseCIDR(entry);
      const range =
        net.kind() === 'ipv6' && (net as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96
          ? ([(net as ipaddr.IPv6).toIPv4Address(), bits - 96] as [Addr, number])
          : ([net, bits] as [Addr, number]);
      return addr.kind() === range[0].kind() && addr.match(range);
    }
    const one = ipaddr.process(entry);
    return one.kind() === addr.kind() && one.toNormalizedString() === addr.toNormalizedString();
  } catch {
    return false;
  }
}

/**
 * Spec 5.3: an empty list lets every address through; otherwise the address must match an entry. An address that
 * is unknown or unparsable never matches a non-empty list (fail closed).
 *
 * @example isAllowed(['10.0.0.0/8', '::1'], '10.1.2.3') // true
 */
export function isAllowed(list: readonly string[], address: string | undefined): boolean {
  if (list.length === 0) return true;
  if (!address) return false;
  const addr = parseAddress(address.trim());
  if (!addr) return false;
  return list.some((entry) => matches(addr, entry));
}
