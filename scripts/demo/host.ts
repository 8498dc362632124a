import { networkInterfaces } from 'node:os';

/**
 * The URLs under which a person on another machine can open `url` (served on this machine, bound to `host`):
 * `url` with its host replaced by each of this machine's non-loopback addresses that the binding covers. Empty
 * when the reference is bound to loopback only. Printed for the person; the demo itself talks over loopback.
 *
 * @example otherMachineUrls('http://127.0.0.1:4010/pay/1', '0.0.0.0') // ['http://192.0.2.7:4010/pay/1']
 */
export function otherMachineUrls(
  url: string,
  host: string,
  interfaces: ReturnType<typeof networkInterfaces> = networkInterfaces(),
): string[] {
  const all = Object.values(interfaces).flatMap((list) => list ?? []);
  const external = all.filter((a) => !a.internal);
  let chosen: typeof external;
  if (host === '0.0.0.0') chosen = external.filter((a) => a.family === 'IPv4');
  else if (host === '::' || host === '') chosen = external;
  else chosen = external.filter((a) => a.address === host);
  return chosen.map((a) => {
    const u = new URL(url);
    u.hostname = a.family === 'IPv6' ? `[${a.address}]` : a.address;
    return u.toString();
  });
}
