import { type Context, Hono } from 'hono';
import { DomainError } from '../domain/errors.js';
import { bearer, isAdminToken } from './auth.js';
import { parseJson, requireNoBody } from './body.js';
import { type AppDeps, type AppEnv, pathId } from './context.js';
import { json } from './errors.js';
import { checkExpect } from './headers.js';
import { bodyOf } from './public-routes.js';

const EVENT_ID_RE = /^evt_[A-Za-z0-9_-]{1,128}$/;
const ENDPOINT_ID_RE = /^[A-Za-z0-9_-]{1,128}$/;

function plainId(c: Context, what: string, re: RegExp): string {
  const id = c.req.param('id') ?? '';
  if (!re.test(id)) throw new DomainError(404, 'not_found', `No ${what} with this id.`);
  return id;
}

/** Admin-token authentication of the control surface: an API key is refused here (401). */
function adminGuard(adminToken: string) {
  return async (c: Context<AppEnv>, next: () => Promise<void>) => {
    const token = bearer(c.req.raw);
    if (!isAdminToken(token, adminToken)) {
      const msg = token.startsWith('sk_')
        ? 'API keys are refused on the control surface; use the admin token.'
        : 'The admin token is not recognised.';
      throw new DomainError(401, 'unauthorized', msg);
    }
    checkExpect(c.req.raw);
    c.set('raw', await bodyOf(c));
    await next();
  };
}

const body = (c: Context<AppEnv>) => parseJson(c.get('raw'), c.req.header('content-type') ?? null);
const noBody = (c: Context<AppEnv>) => requireNoBody(c.get('raw'), c.req.header('content-type') ?? null);

/** `/_cabinet`: what the real service keeps in its merchant cabinet UI (reference-contract.md). */
export function cabinetRoutes(deps: AppDeps): Hono<AppEnv> {
  const cab = deps.cabinet;
  const r = new Hono<AppEnv>();
  r.use('*', adminGuard(deps.adminToken));

  r.post('/merchants', (c) => json(201, cab.createMerchant(body(c) as object | undefined)));
  r.get('/merchants/:id', (c) => json(200, cab.getMerchant(pathId(c, 'merchant'))));
  r.patch('/merchants/:id', (c) => {
    const id = pathId(c, 'merchant');
    return json(200, cab.updateMerchant(id, (body(c) ?? {}) as object));
  });
  r.get('/terminals/:id', (c) => json(200, cab.getTerminal(pathId(c, 'terminal'))));
  r.patch('/terminals/:id', (c) => {
    const id = pathId(c, 'terminal');
    return json(200, cab.updateTerminal(id, (body(c) ?? {}) as { require_signature: boolean }));
  });
  r.get('/terminals/:id/api-keys', (c) => json(200, cab.listApiKeys(pathId(c, 'terminal'))));
  r.post('/terminals/:id/api-keys', (c) => {
    const id = pathId(c, 'terminal');
    return json(201, cab.createApiKey(id, (body(c) ?? {}) as { mode: 'test' }));
  });
  r.delete('/api-keys/:id', (c) => {
    const id = pathId(c, 'API key');
    noBody(c);
    cab.revokeApiKey(id);
    return c.body(null, 204);
  });
  r.post('/shops/:id/webhook-endpoints', (c) => {
    const id = pathId(c, 'shop');
    return json(201, cab.createWebhookEndpoint(id, body(c) ?? {}));
  });
  r.post('/webhook-endpoints/:id/rotate-secret', (c) => {
    const id = plainId(c, 'webhook endpoint', ENDPOINT_ID_RE);
    noBody(c);
    return json(200, cab.rotateWebhookSecret(id));
  });
  r.delete('/webhook-endpoints/:id', (c) => {
    const id = plainId(c, 'webhook endpoint', ENDPOINT_ID_RE);
    noBody(c);
    cab.deleteWebhookEndpoint(id);
    return c.body(null, 204);
  });
  r.get('/webhook-endpoints/:id/deliveries', (c) =>
    json(200, cab.listDeliveries(plainId(c, 'webhook endpoint', ENDPOINT_ID_RE))),
  );
  r.post('/events/:id/resend', (c) => {
    const id = plainId(c, 'event', EVENT_ID_RE);
    noBody(c);
    cab.resendEvent(id);
    return c.body(null, 202);
  });
  return r;
}

/** `/_simulator`: what the bank, the buyer and the clock do (reference-contract.md). */
export function simulatorRoutes(deps: AppDeps): Hono<AppEnv> {
  const sim = deps.simulator;
  const r = new Hono<AppEnv>();
  r.use('*', adminGuard(deps.adminToken));

  const payment = {
    succeed: sim.succeedPayment,
    fail: sim.failPayment,
    expire: sim.expirePayment,
    process: sim.processPayment,
  } as const;
  for (const [action, fn] of Object.entries(payment)) {
    r.post(`/payments/:id/${action}`, (c) => {
      const id = pathId(c, 'payment');
      noBody(c);
      return json(200, fn(id));
    });
  }
  const payout = { succeed: sim.succeedPayout, fail: sim.failPayout } as const;
  for (const [action, fn] of Object.entries(payout)) {
    r.post(`/payouts/:id/${action}`, (c) => {
      const id = pathId(c, 'payout');
      noBody(c);
      return json(200, fn(id));
    });
  }
  r.post('/clock/advance', async (c) => {
    const input = body(c);
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      throw new DomainError(400, 'bad_request', 'A JSON body { "seconds": number } is required.');
    }
    return json(200, await sim.advanceClock(input as { seconds: number }));
  });
  r.get('/clock', () => json(200, sim.getClock()));
  return r;
}
