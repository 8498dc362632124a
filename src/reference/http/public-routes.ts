import { Hono } from 'hono';
import { SBP_BANKS } from '../domain/bank-directory.js';
import { parseJson, readRawBody, requireJson, requireNoBody } from './body.js';
import { authenticate, checkBlock, checkSignature, clientAddress } from './auth.js';
import type { Caller } from '../domain/validate.js';
import {
  type AppDeps,
  type AppEnv,
  checkPathId,
  idempotencyKey,
  idempotencyKeyOf,
  pathId,
} from './context.js';
import { json, jsonText } from './errors.js';
import { header } from './headers.js';
import { EventStreamResponse } from '../sse/response.js';

const replayHeaders = (status: number): Record<string, string> =>
  status === 200 ? { 'idempotent-replayed': 'true' } : {};

/**
 * The steps of the two busiest routes, shared by the hono routes and {@link publicFastPath}: section 5 for every
 * public request (`guard`), then `POST /payments` and `GET /payments/{id}`.
 */
function publicSteps(deps: AppDeps) {
  const { domain } = deps;
  // Every create on one server has the same request URL: parse it once, not per request.
  let lastUrl = '';
  let lastBase = '';
  const payBase = (url: string) => {
    if (url !== lastUrl) {
      lastBase = (deps.publicUrl ?? new URL(url).origin).replace(/\/+$/, '');
      lastUrl = url;
    }
    return lastBase;
  };
  return {
    /** Section 5, in order: key, allow-list, rate limit, live mode, then the body and its signature. */
    async guard(request: Request, remoteAddress: string | undefined) {
      const address = clientAddress(request, remoteAddress, deps.trustProxy);
      const caller = authenticate(domain, request, address, deps.adminToken);
      const raw = await readRawBody(request);
      checkSignature(caller, request, raw);
      return { caller, raw };
    },
    createPayment(request: Request, caller: Caller, raw: Uint8Array): Response {
      checkBlock(caller);
      const key = idempotencyKeyOf(request);
      const body = requireJson(raw, header(request, 'content-type'));
      const res = domain.payments.create(caller, body, key, payBase(request.url));
      return json(res.status, res.body, replayHeaders(res.status));
    },
    readPayment(caller: Caller, id: string): Response {
      return jsonText(200, domain.payments.readText(caller, checkPathId(id, 'payment')));
    },
  };
}

const PUBLIC = '/api/v1/public';
const PAYMENTS = `${PUBLIC}/payments`;

/**
 * `POST /payments` and `GET /payments/{id}` without hono's router, context and middleware chain (a tenth of a
 * GET's CPU): the same steps as the hono routes, in the same order, for exactly the requests hono would route
 * there. Anything else (another method or path, a percent-encoded path) returns `undefined` and goes to hono.
 * The caller maps a thrown error as the app's `onError` does.
 */
export function publicFastPath(
  deps: AppDeps,
): (request: Request, remoteAddress: string | undefined) => Promise<Response> | undefined {
  const { guard, createPayment, readPayment } = publicSteps(deps);
  return (request, remoteAddress) => {
    const method = request.method;
    if (method !== 'GET' && method !== 'POST') return undefined;
    const path = plainPath(request.url);
    if (path === undefined || !path.startsWith(PAYMENTS)) return undefined;
    if (method === 'POST') {
      if (path.length !== PAYMENTS.length) return undefined;
      return guard(request, remoteAddress).then(({ caller, raw }) => createPayment(request, caller, raw));
    }
    // GET /payments/{id}: one non-empty segment after "/payments/".
    if (path.charCodeAt(PAYMENTS.length) !== 47 /* / */ || path.length === PAYMENTS.length + 1)
      return undefined;
    const id = path.slice(PAYMENTS.length + 1);
    if (id.includes('/')) return undefined;
    return guard(request, remoteAddress).then(({ caller }) => readPayment(caller, id));
  };
}

/** The path of a request URL as hono reads it, or `undefined` when it is percent-encoded (hono decodes it). */
function plainPath(url: string): string | undefined {
  const start = url.indexOf('/', url.indexOf(':') + 4);
  if (start < 0) return undefined;
  let i = start;
  for (; i < url.length; i++) {
    const ch = url.charCodeAt(i);
    if (ch === 37 /* % */) return undefined;
    if (ch === 63 /* ? */ || ch === 35 /* # */) break;
  }
  return url.slice(start, i);
}

/**
 * The public API of spec section 4, mounted at `/api/v1/public`. Every request passes section 5 first (key,
 * allow-list, rate limit, live mode, signature over the raw body), then its route.
 */
export function publicRoutes(deps: AppDeps): Hono<AppEnv> {
  const { domain } = deps;
  const r = new Hono<AppEnv>();
  const ct = (c: { req: { raw: Request } }) => header(c.req.raw, 'content-type');

  const { guard, createPayment, readPayment } = publicSteps(deps);

  r.use('*', async (c, next) => {
    const { caller, raw } = await guard(c.req.raw, c.env?.remoteAddress);
    c.set('caller', caller);
    c.set('raw', raw);
    await next();
  });

  r.post('/payments', (c) => createPayment(c.req.raw, c.get('caller'), c.get('raw')));

  r.get('/payments/:id', (c) => readPayment(c.get('caller'), c.req.param('id') ?? ''));

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
