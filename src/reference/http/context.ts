import { CODE } from '../../schemas/errors.js';
import type { Context } from 'hono';
import { IdempotencyKey } from '../../schemas/inputs.js';
import { parseOwn } from '../../schemas/issues.js';
import { IDEMPOTENCY_KEY_RULE, UUID_V4_RE } from '../../schemas/limits.js';
import type { Domain } from '../domain/core.js';
import type { CabinetApi, SimulatorApi, WebhookChaosApi } from '../control.js';
import type { ReadinessReport } from '../readiness/index.js';
import { refuse } from '../domain/errors.js';
import type { Caller } from '../domain/validate.js';
import type { Faults } from '../faults/index.js';
import type { RequestJournal } from '../journal/index.js';
import type { WebhookService } from '../webhooks/index.js';
import type { EventStreamHub } from '../sse/index.js';
import type { StateApi, StateSaving } from '../state/index.js';
import { quote } from '../../internal/quote.js';
import type { Redactor } from '../../internal/redact.js';

/** What the socket adapter knows about a request and a Request cannot carry. */
export interface RequestInfo {
  /** The peer's IP address, as the socket reports it. */
  remoteAddress?: string | undefined;
  /**
   * The whole request body, when the adapter has already read it from its socket (at most the body limit): the
   * app then takes these bytes instead of reading `request.body`. Default: the body is read from `request.body`.
   */
  body?: Uint8Array | undefined;
  /**
   * Reads the request body on demand, at most `maxBytes` (the route's cap), rejecting with the reference's own
   * refusal (a `DomainError`) when it is larger, too slow or cannot be held now. `owner` is the merchant whose key
   * sent it (absent for the admin): an adapter that bounds the bytes it holds gives each owner a share. The node
   * adapter passes it so that no byte of a body is read before section 5 has passed; `request.body` gives the same
   * bytes after it (call it before reading `request.body`, not after). Default: the body is read from
   * `request.body`.
   */
  readBody?: ((maxBytes: number, owner?: string) => Promise<Uint8Array>) | undefined;
}

/** Who sent a control request: the admin, or one merchant through its merchant admin token (http/scope.ts). */
export type Scope = { kind: 'admin' } | { kind: 'merchant'; merchantId: string };

/** Hono environment of the reference app: what the adapter knows of a request is its bindings. */
export interface AppEnv {
  /** `requestId`: the answer's `X-Request-Id`, made by `Reference.fetch` before the app runs (for the journal). */
  Bindings: RequestInfo & { requestId?: string | undefined };
  /** `scope`: who sent a control request (set by the control surface's guard). */
  Variables: { caller: Caller; raw: Uint8Array; scope: Scope };
}

/** What the HTTP layer is built over. */
export interface AppDeps {
  domain: Domain;
  cabinet: CabinetApi;
  simulator: SimulatorApi & StateApi & WebhookChaosApi;
  /** The readiness report (`GET /_simulator/readiness`), of one merchant or all. Default: none, and no route. */
  readiness?: ((merchantId?: string) => ReadinessReport) | undefined;
  hub: EventStreamHub;
  /** The shops of webhook endpoints and events, for a merchant admin token's ownership checks. */
  webhookOwners: Pick<WebhookService, 'endpointShop' | 'eventShop'>;
  adminToken: string;
  /**
   * The reference's own redaction of its error bodies and log lines: every secret by its form, and its startup
   * credentials even without their prefix. An instance per reference, as each client has its own.
   */
  redact: Redactor;
  trustProxy: boolean;
  /** Origin of `payment_url`; default the request's own origin. */
  publicUrl?: string | undefined;
  /** The host names the buyer's page is served under (`ReferenceOptions.publicHost`); default: any host. */
  publicHosts?: readonly string[] | undefined;
  /** The fault rules played on the public API (`/_simulator/faults`). Default: none, and no routes for them. */
  faults?: Faults | undefined;
  /** The request journal (`GET /_simulator/requests`). Default: none, and no routes for it. */
  journal?: RequestJournal | undefined;
  /** Whether the state is saved to a file (`--state`), for `GET /_simulator/health`. Default: none (memory only). */
  stateSaving?: (() => StateSaving) | undefined;
}

/** A path id: a UUIDv4, else 404 naming the problem (no object can have that id). */
export function pathId(c: Context, what: string): string {
  const id = c.req.param('id') ?? '';
  if (!UUID_V4_RE.test(id)) {
    throw refuse(CODE.not_found, `No ${what} with id ${quote(id)}: ids are UUIDv4 strings.`);
  }
  return id.toLowerCase();
}

/** The Idempotency-Key header (spec 5.6), validated by the schema the client uses too. */
export function idempotencyKey(c: Context): string | undefined {
  const value = c.req.header('idempotency-key');
  if (value === undefined) return undefined;
  const r = parseOwn(IdempotencyKey, value);
  if (!r.success) throw refuse(CODE.bad_request, `Idempotency-Key: ${IDEMPOTENCY_KEY_RULE}.`);
  return r.data;
}
