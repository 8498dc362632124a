// Who drives the control surface, and what each route lets a merchant admin token reach (issue 41 item 4: one
// reference shared by parallel CI workers, each with its own merchant). The admin token reaches everything. A
// merchant admin token reaches its own merchant's objects (another merchant's answer 404, as an unknown id does, so
// a worker cannot learn that they exist), its own part of the fault rules, chaos, journal and readiness report, and
// nothing that belongs to the whole reference (403 `forbidden`): the clock, snapshot, restore, new merchants.
import type { Context } from 'hono';
import { CODE } from '../../schemas/errors.js';
import { UUID_V4_RE } from '../../schemas/limits.js';
import { refuse } from '../domain/errors.js';
import type { AppDeps, AppEnv, Scope } from './context.js';

export type { Scope };

/** The objects a control route can name by its `:id`. */
export type OwnedKind =
  | 'merchant'
  | 'terminal'
  | 'api_key'
  | 'shop'
  | 'webhook_endpoint'
  | 'event'
  | 'payment'
  | 'payout';

/**
 * What a route lets a merchant admin token do: `admin`, the whole reference's (403); `any`, the same for everyone
 * (it shows no merchant's data); `own`, the token's merchant's part of a shared thing (the route reads
 * {@link scopeOf}); an {@link OwnedKind}, the route's `:id` must be that merchant's (404 otherwise).
 */
export type Access = 'admin' | 'any' | 'own' | OwnedKind;

/** The merchant that owns each kind of object, or undefined when there is no such object. */
export type OwnerOf = Record<OwnedKind, (id: string) => string | undefined>;

/** The owners' lookups over the domain and the webhook service's records. */
export function ownersOf(deps: Pick<AppDeps, 'domain' | 'webhookOwners'>): OwnerOf {
  const a = deps.domain.accounts;
  const shopOwner = (shopId: string | undefined) =>
    shopId === undefined ? undefined : a.shops.get(shopId)?.merchantId;
  return {
    merchant: (id) => a.merchants.get(id)?.id,
    terminal: (id) => a.terminals.get(id)?.merchantId,
    api_key: (id) => a.keys.get(id)?.merchantId,
    shop: (id) => shopOwner(id),
    webhook_endpoint: (id) => shopOwner(deps.webhookOwners.endpointShop(id)),
    event: (id) => shopOwner(deps.webhookOwners.eventShop(id)),
    payment: (id) => deps.domain.payments.find(id)?.merchantId,
    payout: (id) => deps.domain.payouts.records.get(id)?.merchantId,
  };
}

/** The scope the guard found for this request. */
export const scopeOf = (c: Context<AppEnv>): Scope => c.get('scope');

/** The merchant a request is limited to: its token's merchant, or undefined for the admin. */
export function merchantScope(c: Context<AppEnv>): string | undefined {
  const scope = scopeOf(c);
  return scope.kind === 'merchant' ? scope.merchantId : undefined;
}

/** A middleware that marks itself with its access, so a test can find a route that declares none. */
export type AccessCheck = ((c: Context<AppEnv>, next: () => Promise<void>) => Promise<void>) & {
  readonly access: Access;
};

/**
 * The access check of one route: the first handler of every `/_cabinet` and `/_simulator` route.
 *
 * @example r.get('/merchants/:id', allow('merchant'), (c) => ...)
 */
export function allow(access: Access, owners: OwnerOf): AccessCheck {
  const check = async (c: Context<AppEnv>, next: () => Promise<void>) => {
    const scope = scopeOf(c);
    if (scope.kind === 'merchant' && access !== 'any' && access !== 'own') {
      if (access === 'admin') {
        throw refuse(
          CODE.forbidden,
          "A merchant admin token drives its own merchant only; this route acts on the whole reference (the clock, snapshots, new merchants): use the reference's admin token.",
        );
      }
      const raw = c.req.param('id') ?? '';
      const id = UUID_V4_RE.test(raw) ? raw.toLowerCase() : raw;
      // The same answer as an id that does not exist: another merchant's objects are not there for this token.
      if (owners[access](id) !== scope.merchantId)
        throw refuse(CODE.not_found, `No ${access.replace('_', ' ')} with this id.`);
    }
    await next();
  };
  return Object.assign(check, { access });
}
