import { CODE } from '../../schemas/errors.js';
import { parseOwn } from '../../schemas/issues.js';
import type { ApiKeyRecord, MerchantRecord, ShopRecord, TerminalRecord } from '../domain/accounts.js';
import { MAX_KEYS_PER_TERMINAL } from '../control.js';
import { refuse } from '../domain/errors.js';
import { quote } from '../../internal/quote.js';
import type { IdempotentEntry } from '../domain/idempotency.js';
import { StorageQuota } from '../domain/quota.js';
import { PaymentRecord, PayoutRecord, RefundRecord } from '../domain/records.js';
import { MAX_ENDPOINTS_PER_SHOP } from '../webhooks/endpoints.js';
import type { OutgoingWebhook, WebhookState } from '../webhooks/index.js';
import type { FaultRulesState } from './parts.js';
import { SNAPSHOT_FORMAT, SNAPSHOT_VERSION, type Snapshot, SnapshotSchema } from './schema.js';
import { camelKey } from './snapshot.js';

/** A document's record in camelCase, as the stores keep it. */
function camel<T>(obj: object, skip?: string): T {
  const out: Record<string, unknown> = {};
  for (const k in obj) if (k !== skip) out[camelKey(k)] = obj[k as keyof typeof obj];
  return out as T;
}

const bytes = new TextEncoder();

/** The new state, built whole from a document before anything live changes. */
export type Built = ReturnType<typeof buildState>;

const bad = (message: string) => refuse(CODE.bad_request, `Not a valid snapshot: ${message}`);

/** The records `make` builds from `items`, by id, refusing a repeated id. */
function byId<I, T extends { id: string }>(what: string, items: I[], make: (item: I) => T): Map<string, T> {
  const map = new Map<string, T>();
  for (const item of items.map(make)) {
    if (map.has(item.id)) throw bad(`two ${what} have the id ${quote(item.id, 100)}.`);
    map.set(item.id, item);
  }
  return map;
}

/** Refuses more than `max` items per owner: the cabinet's bound on what one owner may hold. */
function atMost<T>(items: T[], owner: (item: T) => string, max: number, what: string): void {
  const n = new Map<string, number>();
  for (const item of items) {
    const id = owner(item);
    const count = (n.get(id) ?? 0) + 1;
    if (count > max) throw bad(`${quote(id, 100)} has more than ${max} ${what}, which the cabinet refuses.`);
    n.set(id, count);
  }
}

/** A record from a document's fields: its creation fields through the constructor, then the ones that change. */
const record = <T extends object>(Class: new (init: never) => T, fields: object): T =>
  Object.assign(new Class(fields as never), fields);

/** The record `id` names in `map`, or a 400 saying which reference is broken. */
function ref<T>(map: Map<string, T>, id: string, what: string, from: string): T {
  const found = map.get(id);
  if (found === undefined) throw bad(`${from} names ${what} ${quote(id, 100)}, which it does not hold.`);
  return found;
}

// Over 80 lines: checks every reference between a snapshot's records, in the document's order.
/** Checks a document (schema, then every reference between records) and builds its records; throws a 400. */
export function buildState(input: unknown, faults?: FaultRulesState) {
  const parsed = parseOwn(SnapshotSchema, input);
  if (!parsed.success) {
    const top = input as { format?: unknown; version?: unknown } | null;
    if (top?.format === SNAPSHOT_FORMAT && top.version !== SNAPSHOT_VERSION)
      throw bad(`version ${JSON.stringify(top.version)}; this reference reads version ${SNAPSHOT_VERSION}.`);
    const issue = parsed.error.issues[0]!;
    throw bad(`${issue.path.join('.') || 'the document'}: ${issue.message}.`);
  }
  const doc = parsed.data;
  const merchants = byId('merchants', doc.merchants, (m) =>
    camel<MerchantRecord>({ admin_token_digest: null, ...m }),
  );
  const shops = byId('shops', doc.shops, (s) => camel<ShopRecord>(s));
  for (const s of shops.values()) ref(merchants, s.merchantId, 'merchant', `shop ${s.id}`);
  const terminals = byId('terminals', doc.terminals, (t) => camel<TerminalRecord>(t));
  for (const t of terminals.values()) {
    if (ref(shops, t.shopId, 'shop', `terminal ${t.id}`).merchantId !== t.merchantId)
      throw bad(`terminal ${t.id} and its shop belong to different merchants.`);
  }
  const keys: [string, ApiKeyRecord][] = doc.api_keys.map((k) => {
    const t = ref(terminals, k.terminal_id, 'terminal', `API key ${k.id}`);
    if (t.merchantId !== k.merchant_id || t.shopId !== k.shop_id)
      throw bad(`API key ${k.id} and its terminal belong to different merchants or shops.`);
    return [k.digest, camel<ApiKeyRecord>(k, 'digest')];
  });
  byId('API keys', keys, ([, k]) => k);
  // Keys are looked up by digest: two with one digest would let one merchant's key act for another's.
  const digests = new Map<string, string>();
  for (const [digest, k] of keys) {
    const other = digests.get(digest);
    if (other !== undefined)
      throw bad(`API keys ${quote(other, 100)} and ${quote(k.id, 100)} have the same digest.`);
    digests.set(digest, k.id);
  }
  atMost(doc.api_keys, (k) => k.terminal_id, MAX_KEYS_PER_TERMINAL, 'API keys');
  // The startup facts describe a merchant the document holds: its shop, and a terminal of that shop.
  const { facts } = doc;
  const factsShop = ref(shops, facts.shop_id, 'shop', 'facts');
  const factsTerminal = ref(terminals, facts.terminal_id, 'terminal', 'facts');
  ref(merchants, facts.merchant_id, 'merchant', 'facts');
  if (factsShop.merchantId !== facts.merchant_id || factsTerminal.shopId !== facts.shop_id)
    throw bad('facts name a merchant, shop and terminal that do not belong together.');
  const payments = byId('payments', doc.payments, (p) =>
    record(PaymentRecord, {
      ...camel(p, 'terminal_id'),
      terminal: ref(terminals, p.terminal_id, 'terminal', `payment ${p.id}`),
      refunds: null,
    }),
  );
  const refunds = byId('refunds', doc.refunds, (r) => {
    const p = ref(payments, r.payment_id, 'payment', `refund ${r.id}`);
    if (p.merchantId !== r.merchant_id)
      throw bad(`refund ${r.id} and its payment belong to different merchants.`);
    const refund = new RefundRecord(r.id, r.payment_id, r.merchant_id, r.amount, r.reason, r.created_at);
    Object.assign(refund, { status: r.status, completedAt: r.completed_at });
    if (p.refunds) p.refunds.push(refund);
    else p.refunds = [refund];
    return refund;
  });
  for (const p of payments.values()) {
    const sum = (p.refunds ?? []).reduce((n, r) => n + (r.status === 'succeeded' ? r.amount : 0), 0);
    if (sum !== p.amountRefunded || sum > p.amount)
      throw bad(`payment ${p.id} has amount_refunded ${p.amountRefunded} but refunds of ${sum}.`);
  }
  const payouts = byId('payouts', doc.payouts, (p) =>
    record(PayoutRecord, {
      ...camel(p, 'terminal_id'),
      terminal: ref(terminals, p.terminal_id, 'terminal', `payout ${p.id}`),
    }),
  );
  const idempotency = new Map<string, IdempotentEntry>();
  for (const e of doc.idempotency) {
    ref(merchants, e.merchant_id, 'merchant', `idempotency key ${quote(e.key, 100)}`);
    const target = payments.get(e.object_id) ?? refunds.get(e.object_id) ?? payouts.get(e.object_id);
    if (target?.merchantId !== e.merchant_id)
      throw bad(`an idempotency key names an object its merchant does not hold.`);
    idempotency.set(`${e.merchant_id}\u0000${e.key}`, {
      objectId: e.object_id,
      fingerprint: e.fingerprint,
      at: e.at,
    });
  }
  // Each restored object counts against its merchant as a creation would, its document standing for its body.
  const usage = new Map<string, number>();
  for (const [entry, { merchantId }] of [
    ...doc.payments.map((p) => [p, payments.get(p.id)!] as const),
    ...doc.refunds.map((r) => [r, refunds.get(r.id)!] as const),
    ...doc.payouts.map((p) => [p, payouts.get(p.id)!] as const),
  ])
    usage.set(merchantId, (usage.get(merchantId) ?? 0) + StorageQuota.cost(entry));
  return {
    doc,
    merchants,
    shops,
    terminals,
    keys,
    payments,
    refunds,
    payouts,
    idempotency,
    usage,
    ...webhooksOf(doc, shops),
    commitFaults: faults ? faults.prepare(doc.fault_rules) : () => {},
  };
}

/** The webhook part of a document, with its references checked. */
function webhooksOf(doc: Snapshot, shops: Map<string, ShopRecord>): { webhooks: WebhookState } {
  atMost(doc.webhook_endpoints, (e) => e.shop_id, MAX_ENDPOINTS_PER_SHOP, 'webhook endpoints');
  const endpoints = byId('webhook endpoints', doc.webhook_endpoints, (e) => {
    ref(shops, e.shop_id, 'shop', `webhook endpoint ${e.id}`);
    type Endpoint = WebhookState['endpoints'][number];
    const endpoint = camel<Endpoint>(e);
    endpoint.attempts = e.attempts.map((a) => camel<Endpoint['attempts'][number]>(a));
    return endpoint;
  });
  const events = byId('webhook events', doc.webhook_events, (e): OutgoingWebhook => {
    ref(shops, e.shop_id, 'shop', `webhook event ${e.id}`);
    return {
      id: e.id,
      event: e.event,
      shopId: e.shop_id,
      webhookUrl: e.webhook_url,
      body: bytes.encode(e.body),
    };
  });
  const kept = doc.webhook_events.filter((e) => e.kept).map((e) => events.get(e.id)!);
  const pending = doc.pending_deliveries.map((s) => {
    const event = ref(events, s.event_id, 'webhook event', 'a pending delivery');
    if (s.endpoint_id === null) {
      // A delivery to the event's own webhook_url: with none, it has nowhere to go.
      if (event.webhookUrl === null)
        throw bad(`a pending delivery of event ${event.id} goes to its webhook_url, which it does not have.`);
    } else if (
      ref(endpoints, s.endpoint_id, 'webhook endpoint', 'a pending delivery').shopId !== event.shopId
    ) {
      // An event goes only to its own shop's endpoints: another shop's would be told of payments it does not own.
      throw bad(`a pending delivery sends event ${event.id} to an endpoint of another shop.`);
    }
    return { event, endpointId: s.endpoint_id ?? undefined, attempt: s.attempt, dueAt: s.due_at };
  });
  return { webhooks: { endpoints: [...endpoints.values()], events: kept, pending } };
}
