/**
 * `psp-sdk/reference/msw`: msw 2 request handlers that route fetches to an in-process reference, so tests
 * run the SDK against the real service logic with no sockets at all. msw is an optional peer dependency and
 * is imported by this entry only.
 */
import { type HttpHandler, HttpResponse, http } from 'msw';
import { ConnectionReset } from './faults/reset.js';
import type { Reference } from './service.js';

/** Options of {@link createReferenceHandlers}. */
export interface ReferenceHandlersOptions {
  /**
   * The origin (and optional path prefix) the code under test calls, e.g. `https://psp.test`; every request
   * under it goes to the reference, with the path prefix removed. Give the client the same value as its
   * `baseUrl`.
   */
  baseUrl: string;
  /**
   * The client address the reference sees, for the IP allow-list (no socket exists under msw). A string, or a
   * function of the request. Default `127.0.0.1`.
   */
  remoteAddress?: string | ((request: Request) => string | undefined) | undefined;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/**
 * msw handlers that answer every request under `baseUrl` with `reference.fetch`: the public API, `/_cabinet`,
 * `/_simulator` and the buyer's page, including the SSE stream (msw passes streaming bodies through).
 * Requests elsewhere fall through to your other handlers.
 *
 * @example
 * ```ts
 * import { setupServer } from 'msw/node';
 * import { PspClient } from 'psp-sdk';
 * import { createReference } from 'psp-sdk/reference';
 * import { createReferenceHandlers } from 'psp-sdk/reference/msw';
 *
 * const reference = createReference({ clock: 'manual' });
 * const server = setupServer(...createReferenceHandlers(reference, { baseUrl: 'https://psp.test' }));
 * server.listen({ onUnhandledRequest: 'error' });
 *
 * const psp = new PspClient({ apiKey: reference.api_key, baseUrl: 'https://psp.test' });
 * const { payment } = await psp.payments.create({ amount: 150_000 });
 * ```
 */
export function createReferenceHandlers(
  reference: Pick<Reference, 'fetch'>,
  options: ReferenceHandlersOptions,
): HttpHandler[] {
  let base: URL;
  try {
    base = new URL(options.baseUrl);
  } catch {
    throw new TypeError(`createReferenceHandlers: baseUrl must be an absolute URL, got '${options.baseUrl}'`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new TypeError(`createReferenceHandlers: baseUrl must be http or https, got '${base.protocol}'`);
  }
  const prefix = base.origin + base.pathname.replace(/\/+$/, '');
  // A RegExp (not a path pattern) so the base itself and everything below it match, on every msw 2 release.
  const pattern = new RegExp(`^${escapeRegExp(prefix)}(?:/.*)?$`);
  const address = options.remoteAddress ?? '127.0.0.1';
  const remoteAddressOf = typeof address === 'function' ? address : () => address;
  const strip = prefix.length - base.origin.length;
  // A fault rule's reset (or timeout) becomes msw's network error: the code under test's fetch rejects with a
  // TypeError, as on a dropped connection.
  const answer = (request: Request, remoteAddress: string | undefined) =>
    reference
      .fetch(request, { remoteAddress })
      .catch((error: unknown) =>
        error instanceof ConnectionReset ? HttpResponse.error() : Promise.reject(error),
      );
  return [
    http.all(pattern, ({ request }) => {
      const remoteAddress = remoteAddressOf(request);
      if (strip === 0) return answer(request, remoteAddress);
      // The reference serves from its root: drop the base path the client prepends.
      const url = new URL(request.url);
      url.pathname = url.pathname.slice(strip) || '/';
      const init: RequestInit & { duplex?: 'half' | undefined } = {
        method: request.method,
        headers: request.headers,
      };
      if (request.body) {
        init.body = request.body;
        init.duplex = 'half';
      }
      return answer(new Request(url, { ...init, signal: request.signal }), remoteAddress);
    }),
  ];
}
