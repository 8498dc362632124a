import { type Context, Hono } from 'hono';
import { SBP_BANKS } from '../domain/bank-directory.js';
import { parseJson, readRawBody, requireJson, requireNoBody } from './body.js';
import { authenticate, checkBlock, checkSignature, clientAddress } from './auth.js';
import { type AppDeps, type AppEnv, idempotencyKey, pathId } from './context.js';
import { json, jsonText } from './errors.js';
import { checkExpect, header } from './headers.js';
import { EventStreamResponse } from '../sse/response.js';

const NO_BODY = new Uint8Array(0);

/**
 * The raw body of a request: the bytes the adapter already read, else `request.body` read with the body limit. A
 * GET or HEAD has none (the Fetch standard's rule; asking its `body` would make @hono/node-server build a whole
 * second Request to say so).
 */
export function bodyOf(c: Context<AppEnv>): Uint8Array | Promise<Uint8Array> {
  const request = c.req.raw;
  if (request.method === 'GET' || request.method === 'HEAD') return NO_BODY;
  return c.env?.body ?? readRawBody(request);
}

/** `Idempotent-Replayed: true` on a replayed creation (status 200), nothing on a new one. */
const replayHeaders = (status: number): Record<string, string> =>
  status === 200 ? { 'idempotent-replayed': 'true' } : {};

/**
 * The public API of spec section 4, mounted at `/api/v1/public`. Every request passes section 5 first (key,
 * allow-list, rate limit, live mode, signature over the raw body), then its route.
 */
export function publicRoutes(deps: AppDeps): Hono<AppEnv> {
  const { domain } = deps;
  const r = new Hono<AppEnv>();
  const ct = (c: { req: { raw: Request } }) => header(c.req.raw, 'content-type');

  // Section 5, in order: key, allow-list, rate limit, live mode, then the body and its signature.
  r.use('*', async (c, next) => {
    const request = c.req.raw;
    const address = clientAddress(request, c.env?.remoteAddress, deps.trustProxy);
    const caller = authenticate(domain, request, address, deps.adminToken);
    checkExpect(request);
    const raw = await bodyOf(c);
    checkSignature(caller, request, raw);
    c.set('caller', caller);
    c.set('raw', raw);
    await next();
  });

  r.post('/payments', (c) => {
    const caller = c.get('caller');
    checkBlock(caller);
    const key = idempotencyKey(c);
    const body = requireJson(c.get('raw'), ct(c));
    const payBase = (deps.publicUrl ?? new URL(c.req.url).origin).replace(/\/+$/, '');
    const res = domain.payments.create(caller, body, key, payBase);
    return json(res.status, res.body, replayHeaders(res.status));
  });

  r.get('/payments/:id', (c) =>
    jsonText(200, domain.payments.readText(c.get('caller'), pathId(c, 'payment'))),
  );

  r.post('/payments/:id/cancel', (c) => {
    const id = pathId(c, 'payment');
    requireNoBody(c.get('raw'), ct(c));
    return json(200, domain.payments.cancel(c.get('caller'), id));
  });

  r.post('/payments/:id/refund', (c) => {
    const caller = c.get('caller');
    const id = pathId(c, 'payment');
    checkBlock(caller);
    const key = idempotencyKey(c);
    const body = parseJson(c.get('raw'), ct(c));
    const res = domain.refunds.create(caller, id, body, key);
    return json(res.status, res.body, replayHeaders(res.status));
  });

  r.post('/payouts', (c) => {
    const caller = c.get('caller');
    checkBlock(caller);
    const key = idempotencyKey(c);
    const body = requireJson(c.get('raw'), ct(c));
    const res = domain.payouts.create(caller, body, key);
    return json(res.status, res.body, replayHeaders(res.status));
  });

  r.get('/payouts/:id', (c) => json(200, domain.payouts.read(c.get('caller'), pathId(c, 'payout'))));

  r.get('/banks/sbp', () => json(200, { items: SBP_BANKS }));

  r.get('/events', (c) => {
    const headers = {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    };
    // Hono answers HEAD through the GET route; a HEAD must not open (and leak) a stream.
    if (c.req.raw.method === 'HEAD') return new Response(null, { status: 200, headers });
    const caller = c.get('caller');
    // The stream opens now; its bytes go where the answer is consumed: the node adapter writes them straight to the
    // socket, `Reference.fetch` callers get a standard ReadableStream body (ended by the request's signal).
    return new EventStreamResponse(
      deps.hub,
      { keyId: caller.key.id, merchantId: caller.merchant.id, mode: caller.key.mode },
      headers,
      c.req.raw,
    ) as unknown as Response; // a Response to everyone (its prototype chain), as json()'s WireResponse is
  });

  return r;
}
