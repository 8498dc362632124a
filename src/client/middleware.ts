import { originRefused } from './api-errors.js';
import { OPERATIONS } from '../schemas/operations.js';
import type { Operation } from './operation.js';

export type { Operation } from './operation.js';

/**
 * What a {@link Middleware} knows about the attempt it wraps.
 *
 * @example
 * const mw: Middleware = (req, next, ctx) => {
 *   if (ctx.attempt > 1) console.log(`${ctx.operation}: retry ${ctx.attempt - 1}`);
 *   return next(req);
 * };
 */
export interface AttemptContext {
  /** The client method, e.g. `'payments.create'`; `'request'` for `client.request()`. */
  readonly operation: Operation;
  /** 1 for the first try, 2 for the first retry, and so on (for the event stream: the connection attempt). */
  readonly attempt: number;
  /** The call's `Idempotency-Key`, when it has one (the three creates, a keyed `client.request()`). */
  readonly idempotencyKey?: string | undefined;
  /**
   * The path with placeholders in place of ids, the prefix and the operation's path with `{id}` for the id; for `client.request()`,
   * its `template`, else every segment that is not a word of the API's paths as `{id}`.
   */
  readonly urlTemplate: string;
}

/**
 * A function around every HTTP attempt (retries included), called in the order of the `middleware` option. It may
 * change the request (a header, the body), call `next` more than once, or answer by itself without calling `next`
 * (then nothing leaves the process). `next` adds the bearer header, the `Idempotency-Key` and the request
 * signature after every middleware, so the signature covers the exact bytes sent, and the middleware never sees
 * the key. The key goes to `baseUrl` only: a request handed to `next` for another origin, or for a path outside
 * `baseUrl`'s (with `baseUrl: 'https://host/psp'`, anything not under `/psp/`), is refused, unsent, with a
 * `PspApiError` (`unexpected_redirect`, status 0), as a redirect there would be. A middleware that
 * throws fails the attempt as a network error would (retried where the call is safe to repeat; the error is the
 * `cause` of the `PspConnectionError`).
 *
 * @example
 * const requestId: Middleware = (req, next) => {
 *   req.headers.set('x-request-id', crypto.randomUUID());
 *   return next(req);
 * };
 * const client = new PspClient({ apiKey, baseUrl, middleware: [requestId] });
 */
export type Middleware = (
  request: Request,
  next: (request: Request) => Promise<Response>,
  context: AttemptContext,
) => Promise<Response>;

/**
 * Runs `request` through `chain` in order and then through `send`. A middleware's synchronous throw becomes a
 * rejection, like an asynchronous one. The one gate before the key is added, for calls and the event stream alike:
 * a request a middleware moved outside `scope` (another origin, or a path not under `scope`'s path) rejects with a
 * `PspApiError` (`unexpected_redirect`, status 0) and never reaches `send`.
 *
 * @param scope - where requests may go: the client's `baseUrl`. Default: `request`'s origin.
 * @example
 * const res = await runChain([timing], request, context, (r) => fetch(r), 'https://host/psp');
 */
export function runChain(
  chain: readonly Middleware[],
  request: Request,
  context: AttemptContext,
  send: (request: Request) => Promise<Response>,
  scope: string = new URL(request.url).origin,
): Promise<Response> {
  const at = async (i: number, req: Request): Promise<Response> => {
    if (i < chain.length) return chain[i]!(req, (r) => at(i + 1, r), context);
    // `request` was built on baseUrl: a Request the middleware made itself may point anywhere, and `send` adds
    // the key and the signature.
    if (req !== request && !within(req.url, scope))
      throw originRefused(req.url, {
        attempts: context.attempt,
        idempotencyKey: context.idempotencyKey,
      });
    return send(req);
  };
  return at(0, request);
}

/**
 * Whether `url` is `scope`'s origin and under its path, segment-wise (`/psp` holds `/psp/x`, not `/psp2`). An
 * encoded slash or backslash counts as one, and dot segments are resolved after that: a proxy or a server that
 * decodes them (`/psp/..%2Fother`) must not find the request outside either.
 */
function within(url: string, scope: string): boolean {
  const u = new URL(url);
  const s = new URL(scope);
  const base = s.pathname.replace(/\/+$/, '');
  // Joined as text, not resolved against the origin: a leading `//` must stay a path, not become a host.
  const path = new URL(u.origin + u.pathname.replace(/%2f|%5c/gi, '/')).pathname;
  return u.origin === s.origin && (path === base || path.startsWith(`${base}/`));
}

/**
 * The exact bytes of a request body as a middleware left it (`undefined` when it has none), read from a clone so
 * that a middleware may hand the same request to `next` twice.
 *
 * @example
 * const bytes = await bodyBytes(request);
 */
export async function bodyBytes(request: Request): Promise<Uint8Array | undefined> {
  return request.body ? new Uint8Array(await request.clone().arrayBuffer()) : undefined;
}

// The words of the API's paths (the table of operations' segments). Any other segment of a `client.request()` path
// may be an id, an order number or a person's name: as a span name or a metric label it would be unbounded, or
// personal data.
const API_WORDS = new Set(
  Object.values(OPERATIONS).flatMap(({ path }) => path.split('/').filter((s) => !s.startsWith('{'))),
);

/**
 * The template of a path of `client.request()`: the API's own words kept, every other segment replaced by
 * `{id}`, so that spans, metric labels and middleware see a bounded set of names and never an id or a personal
 * detail. A caller who knows better passes `template` to `client.request()`.
 *
 * @example
 * templateOf(pathOf('payments.cancel', paymentId)) === pathOf('payments.cancel'); // true: the id is `{id}` again
 * templateOf('/customers/ivan.petrov@example.com/cards'); // '/{id}/{id}/{id}'
 */
export function templateOf(path: string): string {
  return path
    .split('/')
    .map((s) => (s === '' || API_WORDS.has(s) ? s : '{id}'))
    .join('/');
}
