import type { Context, MiddlewareHandler } from 'hono';
import { CODE } from '../../schemas/errors.js';
import type { Domain } from '../domain/core.js';
import { keyMerchant } from './auth.js';
import type { AppEnv } from './context.js';
import { errorResponse } from './errors.js';
import type { Redactor } from '../../internal/redact.js';
import { ConnectionReset, type Faults } from '../faults/index.js';

// Replaces the answer whole: hono's `c.res` setter would otherwise carry the old answer's headers over (an
// `Idempotent-Replayed` on an error, say).
function replace(c: Context<AppEnv>, res: Response): void {
  c.res = undefined as unknown as Response;
  c.res = res;
}

/** The committed answer nobody will read: its body is cancelled (an event stream leaves the hub). */
async function discard(c: Context<AppEnv>): Promise<void> {
  await c.res.body?.cancel().catch(() => {});
}

/**
 * The fault rules played on the public API: mounted first on `/api/v1/public`, before section 5, so every public
 * route and no control route goes through it. `before`: the request never reaches section 5 or its route.
 * `after`: the route runs and commits, then its answer is replaced (`error`), dropped (`reset`, `timeout` after
 * its delay) or delayed (`latency`). A reset leaves as a thrown {@link ConnectionReset}.
 *
 * @example publicRoutes.use('*', faultMiddleware(faults, domain, redact));
 */
export function faultMiddleware(faults: Faults, domain: Domain, redact: Redactor): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const request = c.req.raw;
    const rule = faults.pick({
      method: request.method,
      path: c.req.path,
      merchantId: () => keyMerchant(domain, request),
    });
    if (!rule) return next();
    const after = rule.phase === 'after';
    const wait = () => faults.wait(rule.delay_ms ?? 0, rule.id, request.signal);
    if (rule.kind === 'latency') {
      if (!after) {
        // A client that gave up during the delay never had its request processed.
        await wait();
        return next();
      }
      await next();
      await wait().catch(async (error: unknown) => {
        await discard(c);
        throw error;
      });
      return;
    }
    if (after) {
      await next();
      await discard(c);
    }
    if (rule.kind === 'error') {
      const headers: Record<string, string> =
        rule.retry_after === undefined ? {} : { 'retry-after': String(rule.retry_after) };
      const message = `Injected by fault rule ${rule.id} of the reference.`;
      return replace(
        c,
        errorResponse(rule.status ?? 503, rule.code ?? CODE.service_unavailable, message, headers, redact),
      );
    }
    if (rule.kind === 'timeout') await wait();
    throw new ConnectionReset(rule.id);
  };
}
