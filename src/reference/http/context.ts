import type { Context } from 'hono';
import { IdempotencyKey } from '../../schemas/inputs.js';
import type { Domain } from '../domain/core.js';
import type { CabinetApi, SimulatorApi } from '../domain/control.js';
import { DomainError } from '../domain/errors.js';
import type { Caller } from '../domain/validate.js';
import type { EventStreamHub } from '../sse/index.js';
import { quote } from './errors.js';
import { type HeaderSource, header } from './headers.js';

/** Hono environment of the reference app: the socket address (and a body an adapter already read) are bindings. */
export interface AppEnv {
  Bindings: { remoteAddress?: string; body?: Uint8Array };
  Variables: { caller: Caller; raw: Uint8Array };
}

/** What the HTTP layer is built over. */
export interface AppDeps {
  domain: Domain;
  cabinet: CabinetApi;
  simulator: SimulatorApi;
  hub: EventStreamHub;
  adminToken: string;
  trustProxy: boolean;
  /** Origin of `payment_url`; default the request's own origin. */
  publicUrl?: string;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** A path id: a UUIDv4, else 404 naming the problem (no object can have that id). */
export function pathId(c: Context, what: string, param = 'id'): string {
  return checkPathId(c.req.param(param) ?? '', what);
}

/** {@link pathId} of an id already taken from the path. */
export function checkPathId(id: string, what: string): string {
  if (!UUID_RE.test(id)) {
    throw new DomainError(404, 'not_found', `No ${what} with id ${quote(id)}: ids are UUIDv4 strings.`);
  }
  return id.toLowerCase();
}

/** The Idempotency-Key header (spec 5.6), validated: 1 to 64 visible ASCII characters. */
export function idempotencyKey(c: Context): string | undefined {
  return idempotencyKeyOf(c.req.raw);
}

/** {@link idempotencyKey} of a request. */
export function idempotencyKeyOf(request: HeaderSource): string | undefined {
  const value = header(request, 'idempotency-key') ?? undefined;
  if (value === undefined) return undefined;
  const r = IdempotencyKey.safeParse(value);
  if (!r.success) {
    throw new DomainError(400, 'bad_request', 'Idempotency-Key: must be 1 to 64 visible ASCII characters.');
  }
  return r.data;
}
