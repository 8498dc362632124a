import { LIMITS } from '../../schemas/limits.js';
import { WEBHOOK_EVENTS, type WebhookEventName } from '../../schemas/events.js';
import { DomainError } from '../domain/errors.js';
import { type AttemptRecord, DeliveryLog } from './log.js';

/** How an endpoint signs: `v2` (default) `t=..,v1=..,v2=..`, or legacy `v1` `sha256=..`. */
export type SignatureVersion = 'v1' | 'v2';

/** A webhook endpoint as the cabinet configured it. The secret lives only here and in the creation answer. */
export interface Endpoint {
  readonly id: string;
  readonly shopId: string;
  readonly url: string;
  /** The events as configured; empty means every event. */
  readonly events: readonly WebhookEventName[];
  readonly signatureVersion: SignatureVersion;
  secret: string;
  /** Creation order across the service; the oldest endpoint of a shop signs `webhook_url` deliveries. */
  readonly seq: number;
  readonly log: DeliveryLog;
  deleted: boolean;
}

/** What `createEndpoint` answers: the one time the secret is shown. */
export interface CreatedEndpoint {
  id: string;
  url: string;
  events: string[];
  signature_version: SignatureVersion;
  secret: string;
}

const KNOWN = new Set<string>(WEBHOOK_EVENTS);
const ALLOWED_KEYS = new Set(['url', 'events', 'signature_version']);

function bad(message: string): DomainError {
  return new DomainError(400, 'bad_request', message);
}

function notFound(id: string): DomainError {
  // The id is caller input, not a secret; cap it so a huge path segment does not bloat the error.
  return new DomainError(404, 'not_found', `No webhook endpoint ${JSON.stringify(id.slice(0, 100))}.`);
}

/** `whs_` plus 32 bytes of CSPRNG output as hex: 256 bits, like the service's other secrets. */
export function newWebhookSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  let hex = '';
  for (const b of bytes) hex += b.toString(16).padStart(2, '0');
  return `whs_${hex}`;
}

function parseUrl(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0) throw bad('`url` is required and must be a string.');
  if (value.length > LIMITS.urlMax) throw bad(`\`url\` is longer than ${LIMITS.urlMax} characters.`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw bad('`url` must be an absolute http or https URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw bad('`url` must be an absolute http or https URL.');
  // Credentials in the URL would leak into the delivery log and logs, and fetch refuses such URLs outright.
  if (url.username || url.password) throw bad('`url` must not contain a user name or password.');
  return url.href;
}

function parseEvents(value: unknown): WebhookEventName[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw bad('`events` must be an array of webhook event names.');
  const out: WebhookEventName[] = [];
  for (const name of value) {
    if (typeof name !== 'string') throw bad('`events` must be an array of webhook event names.');
    if (!KNOWN.has(name))
      throw bad(
        `Unknown webhook event ${JSON.stringify(name.slice(0, 100))} in \`events\`; known events: ${WEBHOOK_EVENTS.join(', ')}.`,
      );
    if (!out.includes(name as WebhookEventName)) out.push(name as WebhookEventName);
  }
  return out;
}

function parseVersion(value: unknown): SignatureVersion {
  if (value === undefined || value === null) return 'v2';
  if (value === 'v1' || value === 'v2') return value;
  throw bad('`signature_version` must be "v1" or "v2".');
}

/**
 * The webhook endpoints of every shop, in creation order. Validation throws before anything changes.
 */
export class EndpointRegistry {
  readonly #byId = new Map<string, Endpoint>();
  readonly #byShop = new Map<string, Endpoint[]>();
  readonly #logLimit: number;
  #seq = 0;

  constructor(logLimit: number) {
    this.#logLimit = logLimit;
  }

  create(shopId: string, input: unknown): Endpoint {
    if (typeof input !== 'object' || input === null || Array.isArray(input))
      throw bad(
        'The body must be a JSON object with `url`, and optionally `events` and `signature_version`.',
      );
    const record = input as Record<string, unknown>;
    for (const key of Object.keys(record))
      if (!ALLOWED_KEYS.has(key))
        throw bad(
          `Unknown field ${JSON.stringify(key.slice(0, 100))}; allowed: url, events, signature_version.`,
        );
    const url = parseUrl(record.url);
    const events = parseEvents(record.events);
    const signatureVersion = parseVersion(record.signature_version);
    const endpoint: Endpoint = {
      id: crypto.randomUUID(),
      shopId,
      url,
      events,
      signatureVersion,
      secret: newWebhookSecret(),
      seq: this.#seq++,
      log: new DeliveryLog(this.#logLimit),
      deleted: false,
    };
    this.#byId.set(endpoint.id, endpoint);
    const list = this.#byShop.get(shopId);
    if (list) list.push(endpoint);
    else this.#byShop.set(shopId, [endpoint]);
    return endpoint;
  }

  /** The live endpoint, or a 404 DomainError. */
  get(id: string): Endpoint {
    const endpoint = this.#byId.get(id);
    if (!endpoint) throw notFound(id);
    return endpoint;
  }

  /** The live endpoint, or undefined once deleted. */
  find(id: string): Endpoint | undefined {
    return this.#byId.get(id);
  }

  delete(id: string): Endpoint {
    const endpoint = this.get(id);
    endpoint.deleted = true;
    this.#byId.delete(id);
    const list = this.#byShop.get(endpoint.shopId);
    if (list) {
      const rest = list.filter((e) => e !== endpoint);
      if (rest.length) this.#byShop.set(endpoint.shopId, rest);
      else this.#byShop.delete(endpoint.shopId);
    }
    return endpoint;
  }

  /** Every live endpoint, oldest first (snapshots). */
  all(): Endpoint[] {
    return [...this.#byId.values()];
  }

  /** Replaces every endpoint with a snapshot's (already checked), oldest first; each log gets these attempts. */
  replace(list: Array<Omit<Endpoint, 'log' | 'deleted'> & { attempts: AttemptRecord[] }>): void {
    for (const e of this.#byId.values()) e.deleted = true;
    this.#byId.clear();
    this.#byShop.clear();
    for (const { attempts, ...fields } of list) {
      const endpoint: Endpoint = { ...fields, log: new DeliveryLog(this.#logLimit), deleted: false };
      for (const a of attempts) endpoint.log.add(a);
      this.#byId.set(endpoint.id, endpoint);
      this.#byShop.set(endpoint.shopId, [...(this.#byShop.get(endpoint.shopId) ?? []), endpoint]);
      this.#seq = Math.max(this.#seq, endpoint.seq + 1);
    }
  }

  /** Endpoints of the shop, oldest first. */
  ofShop(shopId: string): readonly Endpoint[] {
    return this.#byShop.get(shopId) ?? [];
  }
}

/** The strict filter: an empty set takes every event, otherwise only the selected ones. */
export function accepts(endpoint: Endpoint, event: WebhookEventName): boolean {
  return endpoint.events.length === 0 || endpoint.events.includes(event);
}

/** The creation answer of the contract: the endpoint as configured, and its secret. */
export function publicView(endpoint: Endpoint): CreatedEndpoint {
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: [...endpoint.events],
    signature_version: endpoint.signatureVersion,
    secret: endpoint.secret,
  };
}
