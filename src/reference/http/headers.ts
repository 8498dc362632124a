/**
 * Where an adapter may leave the request's raw header list (`[name, value, name, value, ...]`, as node's
 * `IncomingMessage.rawHeaders`) on the `Request` it builds. Reading a header from it builds no `Headers` object:
 * @hono/node-server would otherwise build and validate one per request on the first `request.headers` read.
 */
export const RAW_HEADERS: unique symbol = Symbol('psp-sdk.reference.rawHeaders');

/**
 * What a header is read from: a web `Request`, or an adapter's own request record that carries only the raw list
 * (the node adapter's direct path for the busiest routes builds no `Request` at all).
 */
export type HeaderSource = Request | { readonly [RAW_HEADERS]: readonly string[] };

/**
 * A request header exactly as `request.headers.get(name)` answers it (repeats joined with `", "`, `null` when
 * absent), read from {@link RAW_HEADERS} when the adapter left them, else from `request.headers`.
 *
 * @param name Lower-case header name.
 * @example header(request, 'authorization') // 'Bearer sk_test_...' or null
 */
export function header(request: HeaderSource, name: string): string | null {
  const raw = (request as { [RAW_HEADERS]?: readonly string[] })[RAW_HEADERS];
  if (raw === undefined) return (request as Request).headers.get(name);
  let found: string | null = null;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const key = raw[i]!;
    if (key.length === name.length && (key === name || key.toLowerCase() === name)) {
      found = found === null ? raw[i + 1]! : `${found}, ${raw[i + 1]}`;
    }
  }
  return found;
}
