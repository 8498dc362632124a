import { CODE } from '../../schemas/errors.js';
import { type Context, Hono } from 'hono';
import { refuse } from '../domain/errors.js';
import type { FaultRuleInput } from '../faults/index.js';
import { bearer, isAdminToken } from './auth.js';
import { allow, merchantScope, type OwnerOf, ownersOf, type Scope } from './scope.js';
import type { WebhookChaosInput } from '../domain/cabinet-inputs.js';
import { bodyOf, checkExpect, parseJson, requireNoBody } from './body.js';
import { type AppDeps, type AppEnv, pathId } from './context.js';
import { MAX_RESTORE_BYTES } from '../state/limits.js';
import { json } from './errors.js';
import { quote } from '../../internal/quote.js';
import type { OperationName } from '../../schemas/operations.js';

const EVENT_ID_RE = /^evt_[A-Za-z0-9_-]{1,128}$/;
const ENDPOINT_ID_RE = /^[A-Za-z0-9_-]{1,128}$/;

function plainId(c: Context, what: string, re: RegExp): string {
  const id = c.req.param('id') ?? '';
  if (!re.test(id)) throw refuse(CODE.not_found, `No ${what} with this id.`);
  return id;
}

/**
 * Authentication of the control surface: the admin token, or a merchant admin token (its scope, which each route's
 * {@link allow} check reads). An API key is refused here (401).
 */
function adminGuard(deps: AppDeps) {
  const scopeOfToken = (token: string): Scope | undefined => {
    if (isAdminToken(token, deps.adminToken)) return { kind: 'admin' };
    const merchantId = deps.domain.accounts.merchantOfAdminToken(token);
    return merchantId === undefined ? undefined : { kind: 'merchant', merchantId };
  };
  return async (c: Context<AppEnv>, next: () => Promise<void>) => {
    const token = bearer(c.req.raw);
    const scope = scopeOfToken(token);
    if (!scope) {
      const msg = token.startsWith('sk_')
        ? 'API keys are refused on the control surface; use the admin token.'
        : 'The admin token is not recognised.';
      throw refuse(CODE.unauthorized, msg);
    }
    c.set('scope', scope);
    checkExpect(c.req.raw);
    // A snapshot of a large state is far over the API's body limit; only the admin can send one.
    const restore = scope.kind === 'admin' && c.req.path.endsWith('/_simulator/restore');
    c.set('raw', await (restore ? bodyOf(c, MAX_RESTORE_BYTES) : bodyOf(c)));
    await next();
  };
}

/** The merchant a scoped filter names: the token's own, else 404 as for an unknown merchant. */
function ownMerchant(c: Context<AppEnv>, asked: string | undefined): string | undefined {
  const own = merchantScope(c);
  if (own === undefined || asked === undefined || asked === own) return own ?? asked;
  throw refuse(CODE.not_found, 'No merchant with this id.');
}

/** `/_cabinet`: what the real service keeps in its merchant cabinet UI (reference-contract.md). */
export function cabinetRoutes(deps: AppDeps): Hono<AppEnv> {
  const cab = deps.cabinet;
  const owners: OwnerOf = ownersOf(deps);
  const r = new Hono<AppEnv>();
  r.use('*', adminGuard(deps));

  r.post('/merchants', allow('admin', owners), (c) =>
    json(201, cab.createMerchant(parseJson(c) as object | undefined)),
  );
  r.get('/merchants/:id', allow('merchant', owners), (c) =>
    json(200, cab.getMerchant(pathId(c, 'merchant'))),
  );
  r.patch('/merchants/:id', allow('merchant', owners), (c) => {
    const id = pathId(c, 'merchant');
    return json(200, cab.updateMerchant(id, (parseJson(c) ?? {}) as object));
  });
  r.get('/terminals/:id', allow('terminal', owners), (c) =>
    json(200, cab.getTerminal(pathId(c, 'terminal'))),
  );
  r.patch('/terminals/:id', allow('terminal', owners), (c) => {
    const id = pathId(c, 'terminal');
    return json(200, cab.updateTerminal(id, (parseJson(c) ?? {}) as { require_signature: boolean }));
  });
  r.get('/terminals/:id/api-keys', allow('terminal', owners), (c) =>
    json(200, cab.listApiKeys(pathId(c, 'terminal'))),
  );
  r.post('/terminals/:id/api-keys', allow('terminal', owners), (c) => {
    const id = pathId(c, 'terminal');
    return json(201, cab.createApiKey(id, (parseJson(c) ?? {}) as { mode: 'test' }));
  });
  r.delete('/api-keys/:id', allow('api_key', owners), (c) => {
    const id = pathId(c, 'API key');
    requireNoBody(c);
    cab.revokeApiKey(id);
    return c.body(null, 204);
  });
  r.post('/shops/:id/webhook-endpoints', allow('shop', owners), (c) => {
    const id = pathId(c, 'shop');
    return json(201, cab.createWebhookEndpoint(id, parseJson(c) ?? {}));
  });
  r.post('/webhook-endpoints/:id/rotate-secret', allow('webhook_endpoint', owners), (c) => {
    const id = plainId(c, 'webhook endpoint', ENDPOINT_ID_RE);
    requireNoBody(c);
    return json(200, cab.rotateWebhookSecret(id));
  });
  r.delete('/webhook-endpoints/:id', allow('webhook_endpoint', owners), (c) => {
    const id = plainId(c, 'webhook endpoint', ENDPOINT_ID_RE);
    requireNoBody(c);
    cab.deleteWebhookEndpoint(id);
    return c.body(null, 204);
  });
  r.get('/webhook-endpoints/:id/deliveries', allow('webhook_endpoint', owners), (c) =>
    json(200, cab.listDeliveries(plainId(c, 'webhook endpoint', ENDPOINT_ID_RE))),
  );
  r.post('/events/:id/resend', allow('event', owners), (c) => {
    const id = plainId(c, 'event', EVENT_ID_RE);
    requireNoBody(c);
    cab.resendEvent(id);
    return c.body(null, 202);
  });
  return r;
}

// Over 80 lines: a route table: a line or three per route.
/** `/_simulator`: what the bank, the buyer and the clock do (reference-contract.md). */
export function simulatorRoutes(deps: AppDeps): Hono<AppEnv> {
  const sim = deps.simulator;
  const owners: OwnerOf = ownersOf(deps);
  const r = new Hono<AppEnv>();
  r.use('*', adminGuard(deps));

  const moves: Record<'payment' | 'payout', Record<string, (id: string) => unknown>> = {
    payment: {
      succeed: sim.succeedPayment,
      fail: sim.failPayment,
      expire: sim.expirePayment,
      process: sim.processPayment,
    },
    payout: { succeed: sim.succeedPayout, fail: sim.failPayout },
  };
  for (const [what, actions] of Object.entries(moves) as Array<
    [keyof typeof moves, (typeof moves)['payment']]
  >) {
    for (const [action, move] of Object.entries(actions)) {
      r.post(`/${what}s/:id/${action}`, allow(what, owners), (c) => {
        const id = pathId(c, what);
        requireNoBody(c);
        return json(200, move(id));
      });
    }
  }
  r.post('/clock/advance', allow('admin', owners), async (c) => {
    const input = parseJson(c);
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      throw refuse(CODE.bad_request, 'A JSON body { "seconds": number } is required.');
    }
    return json(200, await sim.advanceClock(input as { seconds: number }));
  });
  r.get('/clock', allow('admin', owners), () => json(200, sim.getClock()));
  const own = allow('own', owners);
  r.put('/webhook-chaos', own, (c) =>
    json(200, sim.setWebhookChaos(parseJson(c) as WebhookChaosInput, merchantScope(c))),
  );
  r.get('/webhook-chaos', own, (c) => json(200, sim.getWebhookChaos(merchantScope(c))));
  r.delete('/webhook-chaos', own, (c) => {
    requireNoBody(c);
    sim.clearWebhookChaos(merchantScope(c));
    return c.body(null, 204);
  });
  const report = deps.readiness;
  if (report)
    r.get('/readiness', own, (c) => json(200, report(ownMerchant(c, c.req.query('merchant') || undefined))));
  // Up, and whether the state is saved: `state` is null when it lives in memory only (no `--state` file).
  r.get('/health', allow('any', owners), () =>
    json(200, { status: 'ok', state: deps.stateSaving?.() ?? null }),
  );
  r.get('/snapshot', allow('admin', owners), () => json(200, sim.snapshot()));
  r.post('/restore', allow('admin', owners), (c) => json(200, sim.restore(parseJson(c))));
  const faults = deps.faults;
  if (faults) {
    r.post('/faults', own, (c) =>
      json(201, faults.addFault(parseJson(c) as FaultRuleInput, merchantScope(c))),
    );
    r.get('/faults', own, (c) => json(200, faults.listFaults(merchantScope(c))));
    r.delete('/faults/:id', own, (c) => {
      requireNoBody(c);
      faults.removeFault(c.req.param('id') ?? '', merchantScope(c));
      return c.body(null, 204);
    });
    r.delete('/faults', own, (c) => {
      requireNoBody(c);
      faults.clearFaults(merchantScope(c));
      return c.body(null, 204);
    });
  }
  const journal = deps.journal;
  if (journal) {
    r.get('/requests', own, (c) => {
      const { operation, since, merchant, ...other } = c.req.query();
      const unknown = Object.keys(other)[0];
      if (unknown !== undefined) {
        throw refuse(
          CODE.bad_request,
          `Unknown query parameter ${quote(unknown, 64)}: use operation, since or merchant.`,
        );
      }
      return json(
        200,
        journal.list({ operation: operation as OperationName, since, merchant: ownMerchant(c, merchant) }),
      );
    });
    r.delete('/requests', own, (c) => {
      requireNoBody(c);
      journal.clear(merchantScope(c));
      return c.body(null, 204);
    });
  }
  return r;
}
