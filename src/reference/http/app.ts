import { Hono, type MiddlewareHandler } from 'hono';
import type { AppDeps, AppEnv } from './context.js';
import { cabinetRoutes, simulatorRoutes } from './control-routes.js';
import { ConnectionReset } from '../faults/index.js';
import { errorResponse, toResponse } from './errors.js';
import { payPageRoutes } from './pay-page.js';
import { buyerPort } from './buyer-port.js';
import { publicRoutes } from './public-routes.js';

// Every route and its methods: an unmatched method on a known path is a 405 with Allow, not a 404.
const ROUTES: Array<[RegExp, string[]]> = [
  [/^\/api\/v1\/public\/payments$/, ['POST']],
  [/^\/api\/v1\/public\/payments\/[^/]+$/, ['GET', 'HEAD']],
  [/^\/api\/v1\/public\/payments\/[^/]+\/(cancel|refund)$/, ['POST']],
  [/^\/api\/v1\/public\/payouts$/, ['POST']],
  [/^\/api\/v1\/public\/payouts\/[^/]+$/, ['GET', 'HEAD']],
  [/^\/api\/v1\/public\/(banks\/sbp|events)$/, ['GET', 'HEAD']],
  [/^\/_cabinet\/merchants$/, ['POST']],
  [/^\/_cabinet\/(merchants|terminals)\/[^/]+$/, ['GET', 'HEAD', 'PATCH']],
  [/^\/_cabinet\/terminals\/[^/]+\/api-keys$/, ['GET', 'HEAD', 'POST']],
  [/^\/_cabinet\/api-keys\/[^/]+$/, ['DELETE']],
  [/^\/_cabinet\/shops\/[^/]+\/webhook-endpoints$/, ['POST']],
  [/^\/_cabinet\/webhook-endpoints\/[^/]+\/rotate-secret$/, ['POST']],
  [/^\/_cabinet\/webhook-endpoints\/[^/]+$/, ['DELETE']],
  [/^\/_cabinet\/webhook-endpoints\/[^/]+\/deliveries$/, ['GET', 'HEAD']],
  [/^\/_cabinet\/events\/[^/]+\/resend$/, ['POST']],
  [
    /^\/_simulator\/(payments\/[^/]+\/(succeed|fail|expire|process)|payouts\/[^/]+\/(succeed|fail))$/,
    ['POST'],
  ],
  [/^\/_simulator\/clock\/advance$/, ['POST']],
  [/^\/_simulator\/clock$/, ['GET', 'HEAD']],
  [/^\/_simulator\/faults$/, ['GET', 'HEAD', 'POST', 'DELETE']],
  [/^\/_simulator\/faults\/[^/]+$/, ['DELETE']],
];

/** Options of {@link createApp}. */
export interface AppOptions {
  /** Where internal errors (a 500, a bug) are logged. Default: nowhere. */
  log?: (line: string) => void;
  /**
   * Middleware run before every route (public API, control surface, buyer's page, 404 and 405 alike), in order:
   * the place for cross-cutting behaviour such as fault injection. Default none.
   */
  middleware?: MiddlewareHandler<AppEnv>[];
}

/**
 * The reference as one Web-standard handler: `app.fetch(request, { remoteAddress })`. Public API under
 * `/api/v1/public`, control surface under `/_cabinet` and `/_simulator`, the buyer's page under `/pay`. Every
 * request of every adapter (node, `Reference.fetch`, msw) goes through this router, its middleware and `onError`.
 *
 * @example
 * const app = createApp(deps, { middleware: [async (c, next) => { await next(); }] });
 * const res = await app.fetch(request, { remoteAddress: '127.0.0.1' });
 */
export function createApp(deps: AppDeps, options: AppOptions = {}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  for (const handler of options.middleware ?? []) app.use(handler);
  app.route('/api/v1/public', publicRoutes(deps));
  app.route('/_cabinet', cabinetRoutes(deps));
  app.route('/_simulator', simulatorRoutes(deps));
  app.route('/pay', payPageRoutes(buyerPort(deps.domain)));
  app.notFound((c) => {
    const path = c.req.path;
    const allowed = ROUTES.find(([re]) => re.test(path))?.[1];
    if (allowed) {
      return errorResponse(
        405,
        'method_not_allowed',
        `${c.req.method} is not allowed here; use ${allowed.filter((m) => m !== 'HEAD').join(' or ')}.`,
        { allow: allowed.join(', ') },
      );
    }
    return errorResponse(404, 'not_found', 'No such endpoint.');
  });
  app.onError((err) => {
    // A fault's reset has no answer: it leaves the app for the adapter to drop the connection.
    if (err instanceof ConnectionReset) throw err;
    return toResponse(err, options.log);
  });
  return app;
}
