// The contract's control surface (`/_cabinet`, `/_simulator`) as typed methods over the domain and the webhook
// service: an application service, so it lives beside service.ts and not in domain/, which imports nothing above it.
import type { WebhookChaos, WebhookChaosConfig } from './webhooks/chaos.js';
import { CODE } from '../schemas/errors.js';
import type { Payment, Payout } from '../schemas/resources.js';
import type { WebhookService } from './webhooks/index.js';
import type { DeliveryAttempt } from './webhooks/log.js';
import type {
  ApiKeyRecord,
  MerchantBlock,
  MerchantRecord,
  NewMerchant,
  TerminalRecord,
} from './domain/accounts.js';
import {
  type AdvanceClockInput,
  type CreateApiKeyInput,
  type CreateMerchantInput,
  parseControl,
  type UpdateMerchantInput,
  type UpdateTerminalInput,
  type WebhookChaosInput,
} from './domain/cabinet-inputs.js';
import { ClockLimitError } from './domain/clock.js';
import type { Domain } from './domain/core.js';
import { refuse } from './domain/errors.js';
import { iso, isoOrNull } from './domain/ids.js';
import { paymentToWire, payoutToWire } from './domain/serialize.js';

/** A new merchant's facts, secrets included (shown this once). */
export interface CreatedMerchant {
  merchant_id: string;
  shop_id: string;
  terminal_id: string;
  api_key: string;
  signing_secret: string;
  /**
   * The Bearer token of `/_cabinet` and `/_simulator` for this merchant alone: its objects, its fault rules,
   * webhook chaos, journal and readiness report; 404 for another merchant's objects, 403 `forbidden` for the
   * clock, snapshots and new merchants. For parallel CI workers sharing one reference (docs/testing.md).
   */
  merchant_admin_token: string;
}

/** A merchant's cabinet settings, as `PATCH /_cabinet/merchants/{id}` answers. */
export interface MerchantSettings {
  merchant_id: string;
  name: string;
  live_enabled: boolean;
  ip_allow_list: string[];
  block: MerchantBlock | null;
  rate_limit: { limit: number; window_seconds: number };
  payouts_enabled: boolean;
}

/** A terminal's cabinet settings, as `PATCH /_cabinet/terminals/{id}` answers. */
export interface TerminalSettings {
  terminal_id: string;
  merchant_id: string;
  shop_id: string;
  name: string;
  require_signature: boolean;
}

/** An API key as the cabinet lists it: never the secret. */
export interface ApiKeyInfo {
  id: string;
  mode: 'test' | 'live';
  prefix: string;
  created_at: string;
  revoked_at: string | null;
}

/**
 * The cabinet's operations as typed methods: each is what one `/_cabinet` route does (same validation, same
 * DomainErrors). Inputs are validated, so a method may be handed untrusted data.
 *
 * @example
 * ```ts
 * const ref = createReference();
 * await ref.control.updateMerchant(ref.merchant_id, { live_enabled: true, ip_allow_list: ['10.0.0.0/8'] });
 * const { api_key } = await ref.control.createApiKey(ref.terminal_id, { mode: 'live' });
 * ```
 */
export interface CabinetApi {
  /** `POST /_cabinet/merchants`. */
  createMerchant(input?: CreateMerchantInput): CreatedMerchant;
  /** `GET /_cabinet/merchants/{id}`. */
  getMerchant(merchantId: string): MerchantSettings;
  /** `PATCH /_cabinet/merchants/{id}`. */
  updateMerchant(merchantId: string, input: UpdateMerchantInput): MerchantSettings;
  /** `GET /_cabinet/terminals/{id}`. */
  getTerminal(terminalId: string): TerminalSettings;
  /** `PATCH /_cabinet/terminals/{id}`. */
  updateTerminal(terminalId: string, input: UpdateTerminalInput): TerminalSettings;
  /** `GET /_cabinet/terminals/{id}/api-keys`. */
  listApiKeys(terminalId: string): { items: ApiKeyInfo[] };
  /** `POST /_cabinet/terminals/{id}/api-keys`: the full key, shown this once. */
  createApiKey(terminalId: string, input: CreateApiKeyInput): { id: string; api_key: string };
  /** `DELETE /_cabinet/api-keys/{id}`: the key then gets 401. */
  revokeApiKey(keyId: string): void;
  /** `POST /_cabinet/shops/{id}/webhook-endpoints`. */
  createWebhookEndpoint(shopId: string, input: unknown): ReturnType<WebhookService['createEndpoint']>;
  /** `POST /_cabinet/webhook-endpoints/{id}/rotate-secret`. */
  rotateWebhookSecret(endpointId: string): { secret: string };
  /** `DELETE /_cabinet/webhook-endpoints/{id}`. */
  deleteWebhookEndpoint(endpointId: string): void;
  /** `GET /_cabinet/webhook-endpoints/{id}/deliveries`, oldest first. */
  listDeliveries(endpointId: string): { items: DeliveryAttempt[] };
  /** `POST /_cabinet/events/{id}/resend`. */
  resendEvent(eventId: string): void;
}

/**
 * The simulator's operations as typed methods: what the bank, the buyer and the clock do. Each move has the same
 * effects (webhooks, SSE events) as when the bank causes it; a move the state machine forbids throws a
 * DomainError 409 `invalid_transition`.
 *
 * @example
 * ```ts
 * const ref = createReference({ clock: 'manual' });
 * await ref.control.succeedPayment(paymentId); // the bank confirms
 * await ref.control.advanceClock(5); // payouts reach their planned outcome
 * ```
 */
export interface SimulatorApi {
  /** `POST /_simulator/payments/{id}/succeed`: 409 `invalid_transition` where not allowed. */
  succeedPayment(paymentId: string): Payment;
  /** `POST /_simulator/payments/{id}/fail`. */
  failPayment(paymentId: string): Payment;
  /** `POST /_simulator/payments/{id}/expire`. */
  expirePayment(paymentId: string): Payment;
  /** `POST /_simulator/payments/{id}/process`. */
  processPayment(paymentId: string): Payment;
  /** `POST /_simulator/payouts/{id}/succeed`. */
  succeedPayout(payoutId: string): Payout;
  /** `POST /_simulator/payouts/{id}/fail`. */
  failPayout(payoutId: string): Payout;
  /** `POST /_simulator/clock/advance`: manual clock only (409 `clock_not_manual` otherwise); due timers fire in order. */
  advanceClock(seconds: number | AdvanceClockInput): Promise<{ now: string }>;
  /** `GET /_simulator/clock`. */
  getClock(): { now: string; mode: 'real' | 'manual' };
}

const merchantSettings = (m: MerchantRecord): MerchantSettings => ({
  merchant_id: m.id,
  name: m.name,
  live_enabled: m.liveEnabled,
  ip_allow_list: [...m.ipAllowList],
  block: m.block,
  rate_limit: { ...m.rateLimit },
  payouts_enabled: m.payoutsEnabled,
});

const terminalSettings = (t: TerminalRecord): TerminalSettings => ({
  terminal_id: t.id,
  merchant_id: t.merchantId,
  shop_id: t.shopId,
  name: t.name,
  require_signature: t.requireSignature,
});

const keyInfo = (k: ApiKeyRecord): ApiKeyInfo => ({
  id: k.id,
  mode: k.mode,
  prefix: k.prefix,
  created_at: iso(k.createdAt),
  revoked_at: isoOrNull(k.revokedAt),
});

// What the admin token can make the reference keep, bounded like everything a caller can add: each merchant brings
// its own storage bound (DEFAULTS.maxStoredBytesPerMerchant), so their number must be bounded too.
export const MAX_MERCHANTS = 1_000;
// Revoked keys are kept (a revoked key answers 401, not "unknown"), so they count.
export const MAX_KEYS_PER_TERMINAL = 100;

/** A new merchant's facts in the startup facts' shape, its secrets shown this once. */
export function merchantFacts(m: NewMerchant): Omit<CreatedMerchant, 'merchant_admin_token'> {
  return {
    merchant_id: m.merchant.id,
    shop_id: m.shop.id,
    terminal_id: m.terminal.id,
    api_key: m.apiKey,
    signing_secret: m.terminal.signingSecret,
  };
}

/** Builds the cabinet over the domain and the webhook service. */
export function createCabinet(domain: Domain, webhooks: WebhookService): CabinetApi {
  const a = domain.accounts;
  return {
    createMerchant(input) {
      const { name } = parseControl('createMerchant', input);
      if (a.merchants.size >= MAX_MERCHANTS)
        throw refuse(CODE.too_many_merchants, `At most ${MAX_MERCHANTS} merchants.`);
      const created = a.createMerchant(name);
      return {
        ...merchantFacts(created),
        merchant_admin_token: a.issueMerchantAdminToken(created.merchant.id),
      };
    },
    getMerchant: (id) => merchantSettings(a.merchant(id)),
    updateMerchant(id, input) {
      const m = a.merchant(id);
      const patch = parseControl('updateMerchant', input);
      if (patch.live_enabled !== undefined) m.liveEnabled = patch.live_enabled;
      if (patch.payouts_enabled !== undefined) m.payoutsEnabled = patch.payouts_enabled;
      if (patch.ip_allow_list !== undefined) m.ipAllowList = [...patch.ip_allow_list];
      if (patch.block !== undefined) m.block = patch.block;
      if (patch.rate_limit !== undefined) {
        m.rateLimit = { ...patch.rate_limit };
        domain.rateLimiter.reset(m.id);
      }
      return merchantSettings(m);
    },
    getTerminal: (id) => terminalSettings(a.terminal(id)),
    updateTerminal(id, input) {
      const t = a.terminal(id);
      t.requireSignature = parseControl('updateTerminal', input).require_signature;
      return terminalSettings(t);
    },
    listApiKeys: (id) => ({ items: a.keysOfTerminal(id).map(keyInfo) }),
    createApiKey(id, input) {
      a.terminal(id);
      const { mode } = parseControl('createApiKey', input);
      if (a.keysOfTerminal(id).length >= MAX_KEYS_PER_TERMINAL)
        throw refuse(
          CODE.too_many_api_keys,
          `At most ${MAX_KEYS_PER_TERMINAL} API keys per terminal, revoked ones included.`,
        );
      const { key, apiKey } = a.createApiKey(id, mode);
      return { id: key.id, api_key: apiKey };
    },
    revokeApiKey: (id) => a.revokeApiKey(id),
    createWebhookEndpoint(shopId, input) {
      a.shop(shopId);
      return webhooks.createEndpoint(shopId, input);
    },
    rotateWebhookSecret: (id) => webhooks.rotateSecret(id),
    deleteWebhookEndpoint: (id) => webhooks.deleteEndpoint(id),
    listDeliveries: (id) => ({ items: webhooks.deliveries(id) }),
    resendEvent: (id) => webhooks.resend(id),
  };
}

/**
 * Webhook chaos as the simulator offers it (src/reference/webhooks/chaos.ts): duplicates, reordering and delays of
 * deliveries, seeded.
 *
 * @example
 * ```ts
 * await ref.control.setWebhookChaos({ seed: 42, duplicate: 1 }); // every delivered event comes twice
 * await ref.control.clearWebhookChaos();
 * ```
 */
export interface WebhookChaosApi {
  /**
   * `PUT /_simulator/webhook-chaos`: puts it in force (the draws start again from its seed); 400 naming a bad field.
   * `merchantId`: for that merchant's events alone, drawn from its own seed (what a merchant admin token sets); it
   * takes precedence over the chaos for every merchant. Default: every merchant's events.
   */
  setWebhookChaos(input: WebhookChaosInput, merchantId?: string | undefined): WebhookChaosConfig;
  /** `GET /_simulator/webhook-chaos`: the chaos in force (with `merchantId`, its own), defaults filled in; null when off. */
  getWebhookChaos(merchantId?: string | undefined): WebhookChaosConfig | null;
  /** `DELETE /_simulator/webhook-chaos`: off (with `merchantId`, its own, and the chaos for every merchant applies again). */
  clearWebhookChaos(merchantId?: string | undefined): void;
}

/** The chaos methods over one webhook service's chaos. */
export function webhookChaosApi(chaos: WebhookChaos): WebhookChaosApi {
  return {
    setWebhookChaos: (input, merchantId) => chaos.set(input, merchantId),
    getWebhookChaos: (merchantId) => chaos.get(merchantId),
    clearWebhookChaos: (merchantId) => chaos.clear(merchantId),
  };
}

/** Builds the simulator over the domain. */
export function createSimulator(domain: Domain): SimulatorApi {
  const pay = (id: string, to: 'succeeded' | 'failed' | 'expired' | 'processing') =>
    paymentToWire(domain.payments.move(domain.payments.get(id), to));
  const out = (id: string, to: 'succeeded' | 'failed') =>
    payoutToWire(domain.payouts.move(domain.payouts.get(id), to));
  const clock = domain.clock as typeof domain.clock & {
    advance?: ((ms: number) => Promise<number>) | undefined;
  };
  return {
    succeedPayment: (id) => pay(id, 'succeeded'),
    failPayment: (id) => pay(id, 'failed'),
    expirePayment: (id) => pay(id, 'expired'),
    processPayment: (id) => pay(id, 'processing'),
    succeedPayout: (id) => out(id, 'succeeded'),
    failPayout: (id) => out(id, 'failed'),
    async advanceClock(arg) {
      const { seconds } = parseControl('advanceClock', typeof arg === 'number' ? { seconds: arg } : arg);
      if (clock.mode !== 'manual' || typeof clock.advance !== 'function') {
        throw refuse(
          CODE.clock_not_manual,
          'The clock is real time; start the reference with a manual clock to advance it.',
        );
      }
      try {
        return { now: iso(await clock.advance(Math.round(seconds * 1000))) };
      } catch (err) {
        if (err instanceof ClockLimitError) throw refuse(CODE.bad_request, `seconds: ${err.message}.`);
        throw err;
      }
    },
    getClock: () => ({ now: iso(domain.clock.now()), mode: domain.clock.mode }),
  };
}
