import { Hono, type MiddlewareHandler } from 'hono';
import type { AppDeps, AppEnv } from './context.js';
import { cabinetRoutes, simulatorRoutes } from './control-routes.js';
import { errorResponse, toResponse } from './errors.js';
import { payPageRoutes } from './pay-page.js';
import { buyerPort } from './buyer-port.js';
import { publicRoutes } from './public-routes.js';

/**
 * The methods of the app's routes, by path pattern, read from hono's own route list (no hand-kept copy): an
 * unmatched method on a known path is then a 405 with `Allow`, not a 404. A GET route answers HEAD too.
 */
function methodsByPath(app: Hono<AppEnv>): Array<[RegExp, string[]]> {
  const table = new Map<string, string[]>();
  for (const { method, path } of app.routes) {
    if (method === 'ALL' || path.includes('*')) continue; // middleware
    const methods = table.get(path) ?? [];
    for (const m of method === 'GET' ? ['GET', 'HEAD'] : [method]) if (!methods.includes(m)) methods.push(m);
    table.set(path, methods);
  }
  return [...table].map(([path, methods]) => [new RegExp(`^${path.replace(/:[^/]+/g, '[^/]+')}$`), methods]);
}

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
  let routes: Array<[RegExp, string[]]> | undefined;
  app.notFound((c) => {
    const path = c.req.path;
    routes ??= methodsByPath(app);
    const allowed = routes.find(([re]) => re.test(path))?.[1];
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
  app.onError((err) => toResponse(err, options.log));
  return app;
}
