// What a caller may add to the requests the client sends, per client or per call: `fetchOptions` (RequestInit
// extras for fetch: an undici `dispatcher`, a Deno `client`, `keepalive`...) and per-call `headers`. Neither can
// change what the SDK owns: the method, body, headers, signal and redirect of a request, and the auth, signature
// and idempotency headers.
import type { FieldIssue } from '../schemas/issues.js';

/**
 * Extras handed to `fetch` with every request, as the runtime's `RequestInit` takes them: a proxy or mTLS dispatcher
 * (Node's undici: `{ dispatcher }`), a Deno HTTP client (`{ client }`), `keepalive`, `priority`... The keys the SDK
 * owns (`method`, `body`, `headers`, `signal`, `redirect`, `window`) are refused.
 *
 * @example
 * // `proxy`: an undici ProxyAgent (Node's fetch is undici's), e.g. new ProxyAgent('http://proxy.internal:3128')
 * new PspClient({ fetchOptions: { dispatcher: proxy } });
 */
export type FetchOptions = Omit<
  RequestInit,
  'method' | 'body' | 'headers' | 'signal' | 'redirect' | 'window'
> &
  Record<string, unknown>;
const OWNED_INIT: readonly string[] = ['method', 'body', 'headers', 'signal', 'redirect', 'window'];

/** Headers a caller may not set: the SDK's own (auth, signature, idempotency, the body's type and size, the host). */
export const PROTECTED_HEADERS: readonly string[] = [
  'authorization',
  'idempotency-key',
  'x-psp-signature',
  'content-type',
  'content-length',
  'accept',
  'host',
];

const isPlain = (v: unknown): v is Record<string, unknown> =>
  v !== null &&
  typeof v === 'object' &&
  (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null);

/** Issues of a `fetchOptions` value (`field` names where it was given). */
export function fetchOptionsIssues(field: string, value: unknown): FieldIssue[] {
  if (value === undefined) return [];
  if (!isPlain(value)) return [{ field, message: 'must be a plain object of RequestInit extras' }];
  return Object.keys(value)
    .filter((k) => OWNED_INIT.includes(k))
    .map((k) => ({
      field: `${field}.${k}`,
      message: 'is set by the SDK for every request and cannot be given',
    }));
}

/** Issues of per-call `headers`: a plain object of string values, none of them {@link PROTECTED_HEADERS}. */
export function headersIssues(value: unknown): FieldIssue[] {
  if (value === undefined) return [];
  if (!isPlain(value))
    return [{ field: 'headers', message: 'must be a plain object of header names and string values' }];
  const issues: FieldIssue[] = [];
  for (const [name, v] of Object.entries(value)) {
    const field = `headers.${name.slice(0, 64)}`;
    if (PROTECTED_HEADERS.includes(name.toLowerCase()))
      issues.push({
        field,
        message: 'is set by the SDK (auth, signature, idempotency, body) and cannot be given',
      });
    else if (typeof v !== 'string') issues.push({ field, message: 'must be a string' });
    else if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || /[\r\n\0]/.test(v))
      issues.push({ field, message: 'must be a valid header name and value' });
  }
  return issues;
}

/** `fetch` with `extras` under every call's own init (the SDK's keys win). */
export function withFetchOptions(
  fetch: typeof globalThis.fetch,
  extras: FetchOptions | undefined,
): typeof globalThis.fetch {
  if (!extras || Object.keys(extras).length === 0) return fetch;
  return (input, init) => fetch(input, { ...extras, ...init } as RequestInit);
}
