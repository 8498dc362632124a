import { type Context, type Handler, Hono } from 'hono';
import { matchedRoutes } from 'hono/route';
import { SBP_BANKS } from '../domain/bank-directory.js';
import { bodyOf, checkExpect, parseJson, requireJson, requireNoBody } from './body.js';
import { bodyCapOf } from './body-caps.js';
import { authenticate, checkBlock, checkSignature, clientAddress } from './auth.js';
import { type AppDeps, type AppEnv, idempotencyKey, pathId } from './context.js';
import { json, jsonText } from './errors.js';
import { faultMiddleware } from './fault-middleware.js';
import { OPERATIONS, type OperationName, type OperationRow } from '../../schemas/operations.js';

/** A creation's answer: 201, or 200 with `Idempotent-Replayed: true` when it replays the first one. */
const created = ({ status, body }: { status: number; body: unknown }): Response =>
  json(status, body, status === 200 ? { 'idempotent-replayed': 'true' } : {});

type Row<N extends OperationName> = (typeof OPERATIONS)[N];

/** What the row of a route makes of its request before the handler runs (src/schemas/operations.ts). */
interface Asked<N extends OperationName> {
  /** The path's `{id}`, checked (a UUIDv4, else 404) and in lower case. */
  id: Row<N> extends { id: string } ? string : undefined;
  /** The checked `Idempotency-Key` of a row that takes one, if sent. */
  key: Row<N> extends { idempotent: true } ? string | undefined : undefined;
  /** The parsed JSON body of a row with an input (`undefined` when an optional one is left out). */
  body: Row<N> extends { input: string } ? unknown : undefined;
}

type RouteHandler<N extends OperationName> = (c: Context<AppEnv>, asked: Asked<N>) => Response;

/** An operation's path as hono writes it: `{id}` becomes `:id`. */
const honoPath = (name: OperationName): string => OPERATIONS[name].path.replace('{id}', ':id');

// Over 80 lines: a route table: a line or three per route.
/**
 * The public API of spec section 4, mounted at `/api/v1/public`. Every request passes section 5 first (key,
 * allow-list, rate limit, live mode, signature over the raw body), then its route.
 */
export function publicRoutes(deps: AppDeps): Hono<AppEnv> {
  const { domain } = deps;
  const r = new Hono<AppEnv>();

  // Which operation each route handler serves: the guard reads a body with the cap of the operation's row.
  const operationOf = new Map<Handler<AppEnv>, OperationName>();

  // Faults first: they stand for the network in front of the service (src/reference/faults).
  if (deps.faults) r.use('*', faultMiddleware(deps.faults, domain, deps.redact));
  // Section 5, in order: key, allow-list, rate limit, live mode, then the body and its signature.
  r.use('*', async (c, next) => {
    const request = c.req.raw;
    const address = clientAddress(request, c.env?.remoteAddress, deps.trustProxy);
    // Set as soon as known (no route runs before the guard passes): the journal names a refused request's merchant
    // and body.
    const caller = authenticate(domain, request, address, deps.adminToken, (known) => c.set('caller', known));
    checkExpect(request);
    // No route for this path and method (a 404 or 405 follows): its body is never read, nor its signature checked.
    const matched = matchedRoutes(c).find((route) => route.method !== 'ALL');
    if (!matched) return next();
    // The body's cap is the largest valid body of the row's input (body-caps.ts; 1 KiB for a row without one): a
    // larger one is refused by its length, unread. The bytes count against the merchant's share of what the
    // adapter holds at once.
    const name = operationOf.get(matched.handler);
    const raw = await bodyOf(c, name && bodyCapOf(name), caller.merchant.id);
    c.set('raw', raw);
    checkSignature(caller, request, raw);
    await next();
  });
  // Each route is a row of the table of operations (src/schemas/operations.ts): its method, path, id, block, key
  // and body rule come from there, applied here in this order (the id names the object, a blocked merchant is
  // refused before its input is judged), so a handler only calls the domain with what the row made of the request.
  const route = <N extends OperationName>(name: N, handler: RouteHandler<N>) => {
    const row: OperationRow = OPERATIONS[name];
    const registered: Handler<AppEnv> = (c) => {
      const id = row.id ? pathId(c, row.id) : undefined;
      if (row.movesMoney) checkBlock(c.get('caller'));
      const key = row.idempotent ? idempotencyKey(c) : undefined;
      const body = !row.input ? requireNoBody(c) : row.inputOptional ? parseJson(c) : requireJson(c);
      return handler(c, { id, key, body } as Asked<N>);
    };
    operationOf.set(registered, name);
    r.on(row.method, honoPath(name), registered);
  };

  route('payments.create', (c, { key, body }) => {
    const payBase = (deps.publicUrl ?? new URL(c.req.url).origin).replace(/\/+$/, '');
    return created(domain.payments.create(c.get('caller'), body, key, payBase));
  });

  route('payments.get', (c, { id }) => jsonText(200, domain.payments.readText(c.get('caller'), id)));

  route('payments.cancel', (c, { id }) => json(200, domain.payments.cancel(c.get('caller'), id)));

  route('payments.refund', (c, { id, key, body }) =>
    created(domain.refunds.create(c.get('caller'), id, body, key)),
  );

  route('payouts.create', (c, { key, body }) => created(domain.payouts.create(c.get('caller'), body, key)));

  route('payouts.get', (c, { id }) => json(200, domain.payouts.read(c.get('caller'), id)));

  route('banks.list', () => json(200, { items: SBP_BANKS }));

  route('events.stream', (c) => {
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
