import { Hono } from 'hono';
import { SBP_BANKS } from '../domain/bank-directory.js';
import { parseJson, requireJson, requireNoBody } from './body.js';
import { checkBlock } from './auth.js';
import { type AppDeps, type AppEnv, idempotencyKey, pathId } from './context.js';
import { json } from './errors.js';
import { publicSteps, replayHeaders } from './fast-path.js';
import { header } from './headers.js';

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
    const { key, merchant } = c.get('caller');
    // The stream ends when the request's signal aborts (the client went away) or the body is cancelled.
    const body = deps.hub.open({
      keyId: key.id,
      merchantId: merchant.id,
      mode: key.mode,
      signal: c.req.raw.signal,
    });
    return new Response(body, { status: 200, headers });
  });

  return r;
}
