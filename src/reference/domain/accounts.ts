import { hmacSha256Hex } from '../../internal/hmac.js';
import { CODE } from '../../schemas/errors.js';
import { API_KEY_RE, type MODES } from '../../schemas/limits.js';
import { DEFAULTS } from './defaults.js';
import { found } from './errors.js';
import { fixedId, newId, randomToken } from './ids.js';

/** Why the cabinet blocked a merchant (spec 5, section 7 codes). */
export const MERCHANT_BLOCKS = [CODE.aml_blocked, CODE.forbidden_purpose] as const;
export type MerchantBlock = (typeof MERCHANT_BLOCKS)[number];
export type KeyMode = (typeof MODES)[number];

export interface RateLimitSetting {
  limit: number;
  window_seconds: number;
}

export interface MerchantRecord {
  readonly id: string;
  name: string;
  liveEnabled: boolean;
  ipAllowList: string[];
  block: MerchantBlock | null;
  rateLimit: RateLimitSetting;
  payoutsEnabled: boolean;
  /**
   * The keyed hash of the merchant's own admin token (`POST /_cabinet/merchants` shows the token once), or null
   * when it has none (the startup merchant, a merchant of an older snapshot). The token itself is never stored.
   */
  adminTokenDigest: string | null;
}

export interface ShopRecord {
  readonly id: string;
  readonly merchantId: string;
  name: string;
}

export interface TerminalRecord {
  readonly id: string;
  readonly merchantId: string;
  readonly shopId: string;
  name: string;
  requireSignature: boolean;
  signingSecret: string;
}

export interface ApiKeyRecord {
  readonly id: string;
  readonly merchantId: string;
  readonly shopId: string;
  readonly terminalId: string;
  readonly mode: KeyMode;
  /** `sk_test_ab12cd`: safe to show; the secret part is never stored. */
  readonly prefix: string;
  readonly createdAt: number;
  revokedAt: number | null;
}

/** What a new merchant gets, secrets included (shown this once). */
export interface NewMerchant {
  merchant: MerchantRecord;
  shop: ShopRecord;
  terminal: TerminalRecord;
  key: ApiKeyRecord;
  apiKey: string;
}

// Keys are looked up by a keyed hash, so the store never holds a usable secret and a lookup never compares secrets.
const keyDigest = (apiKey: string) => hmacSha256Hex('psp-reference-api-key', apiKey);
const adminDigest = (token: string) => hmacSha256Hex('psp-reference-merchant-admin-token', token);

/**
 * Cabinet state: merchants, shops, terminals and API keys, as the real service keeps them in its merchant UI.
 *
 * @example
 * const accounts = new Accounts(() => Date.now());
 * const { apiKey } = accounts.createMerchant('Shop');
 * accounts.authenticate(apiKey); // { kind: 'ok', key }
 */
export class Accounts {
  readonly merchants = new Map<string, MerchantRecord>();
  readonly shops = new Map<string, ShopRecord>();
  readonly terminals = new Map<string, TerminalRecord>();
  readonly keys = new Map<string, ApiKeyRecord>();
  readonly #byDigest = new Map<string, ApiKeyRecord>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  /**
   * A merchant with one shop, terminal and test key: `apiKey` when given (already checked), else a new one. With a
   * given key the merchant's, shop's and terminal's ids are made from it (the same at every start).
   */
  createMerchant(name?: string, apiKey?: string): NewMerchant {
    const id = (label: string) => (apiKey === undefined ? newId() : fixedId(apiKey, label));
    const merchant: MerchantRecord = {
      id: id('merchant'),
      name: name ?? 'Test merchant',
      liveEnabled: false,
      ipAllowList: [],
      block: null,
      rateLimit: { ...DEFAULTS.rateLimit },
      payoutsEnabled: true,
      adminTokenDigest: null,
    };
    const shop: ShopRecord = { id: id('shop'), merchantId: merchant.id, name: merchant.name };
    const terminal: TerminalRecord = {
      id: id('terminal'),
      merchantId: merchant.id,
      shopId: shop.id,
      name: `${merchant.name} terminal`,
      requireSignature: false,
      signingSecret: `thm_${randomToken(40)}`,
    };
    this.merchants.set(merchant.id, merchant);
    this.shops.set(shop.id, shop);
    this.terminals.set(terminal.id, terminal);
    const issued = this.createApiKey(terminal.id, 'test', apiKey);
    return { merchant, shop, terminal, ...issued };
  }

  /** Issues a key (`fixed`, a configured key of the mode's form, or a new one); the full secret is returned this once. */
  createApiKey(terminalId: string, mode: KeyMode, fixed?: string): { key: ApiKeyRecord; apiKey: string } {
    const terminal = this.terminal(terminalId);
    const prefix = fixed?.slice(0, `sk_${mode}_`.length + 6) ?? `sk_${mode}_${randomToken(6)}`;
    const apiKey = fixed ?? `${prefix}_${randomToken(32)}`;
    const key: ApiKeyRecord = {
      id: newId(),
      merchantId: terminal.merchantId,
      shopId: terminal.shopId,
      terminalId: terminal.id,
      mode,
      prefix,
      createdAt: this.#now(),
      revokedAt: null,
    };
    this.keys.set(key.id, key);
    this.#byDigest.set(keyDigest(apiKey), key);
    return { key, apiKey };
  }

  /**
   * Gives the merchant a new merchant admin token (`adm_` plus 40 random characters, like the admin token), shown
   * this once; a previous one stops working.
   */
  issueMerchantAdminToken(merchantId: string): string {
    const token = `adm_${randomToken(40)}`;
    this.merchant(merchantId).adminTokenDigest = adminDigest(token);
    return token;
  }

  /**
   * The merchant whose admin token `token` is, or undefined. Digests are compared, never tokens; a scan, as
   * merchants are at most a thousand and a restore replaces them wholesale (no index to keep in step).
   */
  merchantOfAdminToken(token: string): string | undefined {
    const digest = adminDigest(token);
    for (const m of this.merchants.values()) if (m.adminTokenDigest === digest) return m.id;
    return undefined;
  }

  revokeApiKey(keyId: string): void {
    const key = found(this.keys, keyId, 'API key');
    key.revokedAt ??= this.#now();
  }

  /** Resolves a bearer token: a well-formed, known, unrevoked key, or why not. Never echoes the token. */
  authenticate(
    token: string,
  ): { kind: 'ok'; key: ApiKeyRecord } | { kind: 'malformed' | 'unknown' | 'revoked'; key?: undefined } {
    // Malformed is the spec's form (the rule the client checks), not the narrower form of the keys issued here:
    // a key of the right form that was never issued is unknown, and says so.
    if (!API_KEY_RE.test(token)) return { kind: 'malformed' };
    const key = this.#byDigest.get(keyDigest(token));
    if (!key) return { kind: 'unknown' };
    if (key.revokedAt !== null) return { kind: 'revoked' };
    return { kind: 'ok', key };
  }

  /** Every key with its lookup digest (never a usable secret), for snapshots (src/reference/state). */
  keyDigests(): [string, ApiKeyRecord][] {
    return [...this.#byDigest];
  }

  /** Replaces the keys with a snapshot's (already checked). */
  replaceKeys(keys: Iterable<[digest: string, key: ApiKeyRecord]>): void {
    this.keys.clear();
    this.#byDigest.clear();
    for (const [digest, key] of keys) {
      this.keys.set(key.id, key);
      this.#byDigest.set(digest, key);
    }
  }

  merchant(id: string): MerchantRecord {
    return found(this.merchants, id, 'merchant');
  }

  shop(id: string): ShopRecord {
    return found(this.shops, id, 'shop');
  }

  terminal(id: string): TerminalRecord {
    return found(this.terminals, id, 'terminal');
  }

  keysOfTerminal(terminalId: string): ApiKeyRecord[] {
    this.terminal(terminalId);
    return [...this.keys.values()].filter((k) => k.terminalId === terminalId);
  }
}

/** The reference's starting facts: one merchant, shop, terminal and test key, and the admin token. */
export interface StartupFacts {
  admin_token: string;
  merchant_id: string;
  shop_id: string;
  terminal_id: string;
  api_key: string;
  signing_secret: string;
}
