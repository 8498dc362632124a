import { CODE } from '../../schemas/errors.js';
import * as z from 'zod/mini';
import { isWebhookUrl, maxChars, oneOf } from '../../schemas/common.js';
import {
  SIGNATURE_VERSIONS,
  type SignatureVersion,
  WEBHOOK_EVENTS,
  type WebhookEventName,
} from '../../schemas/names.js';
import { LIMITS, WEBHOOK_URL_RULE } from '../../schemas/limits.js';
import { refuse } from '../domain/errors.js';
import { quote } from '../../internal/quote.js';
import { parseAddress } from '../domain/ip-allow.js';
import { parseBody } from '../domain/validate.js';
import { type AttemptRecord, DeliveryLog } from './log.js';

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
}

/** An endpoint as a snapshot keeps it: its fields, and its delivery log's attempts. */
export type EndpointState = Omit<Endpoint, 'log'> & { attempts: AttemptRecord[] };

/** What `createEndpoint` answers: the one time the secret is shown. */
export interface CreatedEndpoint {
  id: string;
  url: string;
  events: string[];
  signature_version: SignatureVersion;
  secret: string;
}

/** An endpoint's URL: the rule of a payment's `webhook_url` too; a restore checks a snapshot's endpoints by it. */
export const ENDPOINT_URL = z
  .string(WEBHOOK_URL_RULE)
  .check(z.refine(isWebhookUrl, WEBHOOK_URL_RULE), maxChars(LIMITS.urlMax));

// The rules of a payment's `webhook_url` (src/schemas), so both places where the service POSTs take the same URLs.
const endpointInput = z.strictObject(
  {
    url: ENDPOINT_URL,
    events: z.optional(z.nullable(z.array(oneOf(WEBHOOK_EVENTS), 'must be an array of webhook event names'))),
    signature_version: z.optional(z.nullable(oneOf(SIGNATURE_VERSIONS, 'must be "v1" or "v2"'))),
  },
  {
    error: (issue) =>
      issue.code === 'invalid_type'
        ? 'must be a JSON object `{ url, events?, signature_version? }`'
        : undefined,
  },
);

// Each endpoint has its own pending-delivery bound (10,000 series), and every event of the shop goes to each: their
// number per shop is bounded so that one shop's events cannot multiply without bound.
export const MAX_ENDPOINTS_PER_SHOP = 16;

/** `whs_` plus 32 bytes of CSPRNG output as hex: 256 bits, like the service's other secrets. */
export function newWebhookSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `whs_${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
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

  /** A new endpoint of the shop; `secret` when the configuration fixed the shop's (already checked), else a new one. */
  create(shopId: string, input: unknown, secret?: string): Endpoint {
    const { url, events, signature_version } = parseBody(endpointInput, input);
    if (this.ofShop(shopId).length >= MAX_ENDPOINTS_PER_SHOP)
      throw refuse(
        CODE.too_many_webhook_endpoints,
        `At most ${MAX_ENDPOINTS_PER_SHOP} webhook endpoints per shop; delete one first.`,
      );
    const endpoint: Endpoint = {
      id: crypto.randomUUID(),
      shopId,
      // Written as a WHATWG URL writes it (lower-case scheme and host); a punycode label that does not decode is
      // kept as given (its deliveries fail as an unknown host's do).
      url: URL.canParse(url) ? new URL(url).href : url,
      events: [...new Set(events ?? [])],
      signatureVersion: signature_version ?? 'v2',
      secret: secret ?? newWebhookSecret(),
      seq: this.#seq++,
      log: new DeliveryLog(this.#logLimit),
    };
    this.#add(endpoint);
    return endpoint;
  }

  /** The live endpoint, or a 404 DomainError. */
  get(id: string): Endpoint {
    const endpoint = this.#byId.get(id);
    // The id is caller input: quoted redacted and capped, so neither a pasted secret nor a huge segment shows.
    if (!endpoint) throw refuse(CODE.not_found, `No webhook endpoint ${quote(id, 100)}.`);
    return endpoint;
  }

  /** The live endpoint, or undefined once deleted. */
  find(id: string): Endpoint | undefined {
    return this.#byId.get(id);
  }

  delete(id: string): void {
    const endpoint = this.get(id);
    this.#byId.delete(id);
    const rest = this.ofShop(endpoint.shopId).filter((e) => e !== endpoint);
    if (rest.length) this.#byShop.set(endpoint.shopId, rest);
    else this.#byShop.delete(endpoint.shopId);
  }

  /** Every live endpoint, oldest first (snapshots). */
  all(): Endpoint[] {
    return [...this.#byId.values()];
  }

  /** Replaces every endpoint with a snapshot's (already checked), oldest first; each log gets these attempts. */
  replace(list: EndpointState[]): void {
    this.#byId.clear();
    this.#byShop.clear();
    for (const { attempts, ...fields } of list) {
      const endpoint: Endpoint = { ...fields, log: new DeliveryLog(this.#logLimit) };
      for (const a of attempts) endpoint.log.add(a);
      this.#add(endpoint);
      this.#seq = Math.max(this.#seq, endpoint.seq + 1);
    }
  }

  /** Endpoints of the shop, oldest first. */
  ofShop(shopId: string): readonly Endpoint[] {
    return this.#byShop.get(shopId) ?? [];
  }

  #add(endpoint: Endpoint): void {
    this.#byId.set(endpoint.id, endpoint);
    this.#byShop.set(endpoint.shopId, [...this.ofShop(endpoint.shopId), endpoint]);
  }
}

/**
 * Whether a webhook may be POSTed to `address` (an IP, as a URL's hostname or a DNS answer gives it) when private
 * targets are not allowed: only a public unicast address may. Loopback, private, link-local (cloud metadata),
 * carrier-grade NAT, multicast, unspecified and reserved ranges are refused, an IPv4-mapped IPv6 address as its IPv4.
 */
export function isPublicAddress(address: string): boolean {
  return parseAddress(address)?.range() === 'unicast';
}
