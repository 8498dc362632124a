import { DEFAULTS } from '../domain/defaults.js';
import { DomainError } from '../domain/errors.js';
import type { Caller } from '../domain/validate.js';
import { authenticate, checkBlock, checkSignature, clientAddress } from './auth.js';
import { readRawBody, requireJson } from './body.js';
import { type AppDeps, checkPathId, idempotencyKeyOf } from './context.js';
import { json, jsonText } from './errors.js';
import { type HeaderSource, header, RAW_HEADERS } from './headers.js';

/** `Idempotent-Replayed: true` on a replayed creation (status 200), nothing on a new one. */
export const replayHeaders = (status: number): Record<string, string> =>
  status === 200 ? { 'idempotent-replayed': 'true' } : {};

/** What the creation step reads of a request: its URL (the origin of `payment_url`) and its headers. */
type CreateSource = HeaderSource & { readonly url: string };

/**
 * The steps of the two busiest routes, shared by the hono routes, {@link publicFastPath} and {@link directRoutes}:
 * section 5 for every public request, then `POST /payments` and `GET /payments/{id}`.
 */
export function publicSteps(deps: AppDeps) {
  const { domain } = deps;
  // Every create on one server has the same request URL: parse it once, not per request.
  let lastUrl = '';
  let lastBase = '';
  const payBase = (url: string) => {
    if (url !== lastUrl) {
      lastBase = (deps.publicUrl ?? new URL(url).origin).replace(/\/+$/, '');
      lastUrl = url;
    }
    return lastBase;
  };
  /** Section 5 up to the body: key, allow-list, rate limit, live mode. */
  const admit = (request: HeaderSource, remoteAddress: string | undefined): Caller =>
    authenticate(domain, request, clientAddress(request, remoteAddress, deps.trustProxy), deps.adminToken);
  return {
    admit,
    /** Section 5, in order: key, allow-list, rate limit, live mode, then the body and its signature. */
    async guard(request: Request, remoteAddress: string | undefined) {
      const caller = admit(request, remoteAddress);
      const raw = await readRawBody(request);
      checkSignature(caller, request, raw);
      return { caller, raw };
    },
    createPayment(request: CreateSource, caller: Caller, raw: Uint8Array): Response {
      checkBlock(caller);
      const key = idempotencyKeyOf(request);
      const body = requireJson(raw, header(request, 'content-type'));
      const res = domain.payments.create(caller, body, key, payBase(request.url));
      return json(res.status, res.body, replayHeaders(res.status));
    },
    readPayment(caller: Caller, id: string): Response {
      return jsonText(200, domain.payments.readText(caller, checkPathId(id, 'payment')));
    },
  };
}

const PUBLIC = '/api/v1/public';
const PAYMENTS = `${PUBLIC}/payments`;

/**
 * `POST /payments` and `GET /payments/{id}` without hono's router, context and middleware chain (a tenth of a
 * GET's CPU): the same steps as the hono routes, in the same order, for exactly the requests hono would route
 * there. Anything else (another method or path, a percent-encoded path) returns `undefined` and goes to hono.
 * The caller maps a thrown error as the app's `onError` does.
 */
export function publicFastPath(
  deps: AppDeps,
): (request: Request, remoteAddress: string | undefined) => Promise<Response> | undefined {
  const { guard, createPayment, readPayment } = publicSteps(deps);
  return (request, remoteAddress) => {
    const method = request.method;
    if (method !== 'GET' && method !== 'POST') return undefined;
    const path = plainPath(request.url);
    if (path === undefined || !path.startsWith(PAYMENTS)) return undefined;
    if (method === 'POST') {
      if (path.length !== PAYMENTS.length) return undefined;
      return guard(request, remoteAddress).then(({ caller, raw }) => createPayment(request, caller, raw));
    }
    // GET /payments/{id}: one non-empty segment after "/payments/".
    if (path.charCodeAt(PAYMENTS.length) !== 47 /* / */ || path.length === PAYMENTS.length + 1)
      return undefined;
    const id = path.slice(PAYMENTS.length + 1);
    if (id.includes('/')) return undefined;
    return guard(request, remoteAddress).then(({ caller }) => readPayment(caller, id));
  };
}

/** The path of a request URL as hono reads it, or `undefined` when it is percent-encoded (hono decodes it). */
function plainPath(url: string): string | undefined {
  const start = url.indexOf('/', url.indexOf(':') + 4);
  if (start < 0) return undefined;
  let i = start;
  for (; i < url.length; i++) {
    const ch = url.charCodeAt(i);
    if (ch === 37 /* % */) return undefined;
    if (ch === 63 /* ? */ || ch === 35 /* # */) break;
  }
  return url.slice(start, i);
}

/**
 * A request an adapter has already read in full, for {@link DirectRoutes}: no `Request`, no stream, no promise.
 * `bytes` is `undefined` when the body could not be read (the client went away).
 */
export interface ReadRequest {
  readonly method: 'GET' | 'POST';
  /** The absolute request URL, as the `Request` would carry it (`payment_url` takes its origin). */
  readonly url: string;
  readonly [RAW_HEADERS]: readonly string[];
  readonly bytes: Uint8Array | undefined;
}

/**
 * The two busiest routes answered synchronously from an already-read request, for the node adapter: no `Request`,
 * no web stream, no promise between the socket and the answer. The adapter asks {@link DirectRoutes.takes} before
 * it reads anything and sends every request it is not sure of to the full app.
 */
export interface DirectRoutes {
  /** The body size the adapter may read for {@link DirectRoutes.answer}: bigger ones go to the full app. */
  readonly maxBodyBytes: number;
  /**
   * Whether the request line is one the direct routes answer exactly as the full app would: `POST` of exactly
   * `/api/v1/public/payments`, or `GET` of `/api/v1/public/payments/{id}` with a plain id (letters, digits, `-`);
   * no query, no percent-encoding, no dot segment.
   */
  takes(method: string, target: string): method is 'GET' | 'POST';
  /**
   * The answer. {@link directRoutes} throws a `DomainError` for a client's mistake; the reference's own handler
   * (service.ts) maps it as the app's `onError` does, so what the adapter gets never throws.
   */
  answer(request: ReadRequest, remoteAddress: string | undefined): Response;
}

const ID_CHAR = /^[0-9A-Za-z-]{1,64}$/;

/** The {@link DirectRoutes} of a reference app: the same steps as its hono routes, in the same order. */
export function directRoutes(deps: AppDeps): DirectRoutes {
  const { admit, createPayment, readPayment } = publicSteps(deps);
  return {
    maxBodyBytes: DEFAULTS.maxBodyBytes,
    takes(method, target): method is 'GET' | 'POST' {
      if (method === 'POST') return target === PAYMENTS;
      return (
        method === 'GET' &&
        target.length > PAYMENTS.length + 1 &&
        target.startsWith(PAYMENTS) &&
        target.charCodeAt(PAYMENTS.length) === 47 /* / */ &&
        ID_CHAR.test(target.slice(PAYMENTS.length + 1))
      );
    },
    answer(request, remoteAddress) {
      const caller = admit(request, remoteAddress);
      const raw = request.bytes;
      if (raw === undefined) throw new DomainError(400, 'bad_request', 'The request body could not be read.');
      checkSignature(caller, request, raw);
      if (request.method === 'POST') return createPayment(request, caller, raw);
      // takes() let through one plain segment after /payments/: the id is the URL's last segment.
      return readPayment(caller, request.url.slice(request.url.lastIndexOf('/') + 1));
    },
  };
}
