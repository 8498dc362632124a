// The one way a request of this client leaves the process, for calls (per attempt) and the event stream (per
// connection): the headers every request carries, the app's middleware, then the secrets, then fetch. Written
// once so that the user agent, the key, the Idempotency-Key and the signature are added, and a redirect refused,
// by the same lines everywhere.
import { authorization, sha256Signature } from '../internal/wire.js';
import { redirectMessage, PspResponseError } from './errors.js';
import { type AttemptContext, bodyBytes, type Middleware, runChain } from './middleware.js';
import { release } from './release.js';
import { createSigner } from './sign.js';

/**
 * The secret headers of one attempt, over the exact body sent (its text or bytes; `undefined` when it has none):
 * `Authorization`, the `Idempotency-Key` and `X-PSP-Signature`. May return a promise (an async signer); a
 * rejection fails the attempt as a network error would.
 */
export type Credentials = (
  body: string | Uint8Array | undefined,
  context: AttemptContext,
) => Record<string, string> | Promise<Record<string, string>>;

/** What {@link createSendStep} is built from. */
export interface SendOptions {
  fetch: typeof fetch;
  /** Run in order around every attempt; none by default. */
  middleware?: readonly Middleware[] | undefined;
  /** Fresh per attempt, after every middleware: see {@link credentialsOf}. */
  headers: Credentials;
  /** The client's `baseUrl`: a request a middleware moves outside it (origin or path) is refused, unsent. */
  baseUrl: string;
  /** Sent on every request before the middleware (which may change it); none in a browser, which sets its own. */
  userAgent?: string | undefined;
}

/**
 * Sends `request` (built on baseUrl with `redirect: 'manual'`, without headers of its own but a call's trace
 * context) with `body`, its exact JSON text, once. `init` is handed to fetch as given (ky's per-attempt options).
 */
export type SendStep = (
  request: Request,
  context: AttemptContext,
  body?: string,
  init?: RequestInit,
) => Promise<Response>;

/**
 * The client's credentials: bearer auth with `apiKey`, the attempt's `Idempotency-Key` when it has one and, with a
 * `signingSecret`, `X-PSP-Signature` over the exact body (the empty string when there is none).
 *
 * @example
 * const headers = credentialsOf('sk_test_...', 'thm_...');
 * headers('{"amount":100}', context); // { authorization, 'idempotency-key'?, 'x-psp-signature' }
 */
export function credentialsOf(apiKey: string, signingSecret?: string): Credentials {
  const bearer = authorization(apiKey);
  const sign = signingSecret ? createSigner(signingSecret) : undefined;
  return (body, context) => {
    const h: Record<string, string> = { authorization: bearer };
    if (context.idempotencyKey !== undefined) h['idempotency-key'] = context.idempotencyKey;
    // Over the exact text handed to fetch (fetch encodes a string body as UTF-8, as HMAC does).
    if (sign) h['x-psp-signature'] = sha256Signature(sign(body ?? ''));
    return h;
  };
}

/**
 * The headers every request carries that are no secret, set before the middleware: what it accepts (the event
 * stream, `text/event-stream`, uncached; every call JSON), the JSON type of a body, and the user agent.
 */
function plainHeaders(h: Headers, context: AttemptContext, body: string | undefined, userAgent?: string) {
  if (context.operation === 'events.stream') {
    h.set('accept', 'text/event-stream');
    h.set('cache-control', 'no-cache');
  } else h.set('accept', 'application/json');
  // A string body made the Request `text/plain`; every body sent here is JSON.
  if (body !== undefined) h.set('content-type', 'application/json');
  if (userAgent) h.set('user-agent', userAgent);
}

/**
 * The send step: sets the headers every request carries (see `plainHeaders`), runs the middleware chain (which refuses a request moved outside `baseUrl`), then sets the
 * secret headers on a copy the middleware never sees, over the bytes the last middleware left, then fetches with
 * `redirect: 'manual'`. An answer that a custom fetch reached by following a redirect anyway is refused with a
 * `PspResponseError`: it is not the API's.
 *
 * @example
 * const send = createSendStep({ fetch, middleware, headers: credentialsOf(apiKey), baseUrl });
 * const res = await send(new Request(url, { redirect: 'manual' }), { operation: 'banks.list', attempt: 1, urlTemplate });
 */
export function createSendStep({
  fetch,
  middleware = [],
  headers,
  baseUrl,
  userAgent,
}: SendOptions): SendStep {
  const finish = async (
    request: Request,
    body: string | Uint8Array | undefined,
    context: AttemptContext,
    init: RequestInit | undefined,
  ): Promise<Response> => {
    const secret = await headers(body, context);
    for (const k in secret) request.headers.set(k, secret[k]!);
    const res = await fetch(request, init);
    if (!res.redirected) return res;
    // A custom fetch that followed a redirect in spite of `redirect: 'manual'`: too late to stop it, but the
    // answer of another address is not the API's.
    void release(res.body);
    throw new PspResponseError(redirectMessage(res.status, res.url), res.status, [], context.idempotencyKey);
  };
  // `request` is built with `redirect: 'manual'` (ky's option, the stream's own): the API never redirects, and a
  // 3xx is an error answer, never a hop that takes the key elsewhere.
  return (request, context, body, init) => {
    plainHeaders(request.headers, context, body, userAgent);
    return middleware.length
      ? runChain(
          middleware,
          request,
          context,
          async (r) => {
            const sent = r === request ? body : await bodyBytes(r);
            // A copy: the middleware never sees the key, and may hand the same request to next again. Our signal
            // and `manual` again: a Request the middleware built itself would follow a redirect and outlive a
            // timeout.
            return finish(
              new Request(r, { body: sent, redirect: 'manual', signal: request.signal }),
              sent,
              context,
              init,
            );
          },
          baseUrl,
        )
      : finish(request, body, context, init);
  };
}
