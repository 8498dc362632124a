import { SNAPSHOT_FORMAT, SNAPSHOT_VERSION, type Snapshot } from './schema.js';
import type { StateParts } from './parts.js';
import type { OutgoingWebhook } from '../webhooks/index.js';

// Stored records keep camelCase fields; the document is snake_case like the wire. One generic conversion each way
// (top-level keys only), so a field added to a record needs only its line in the schema. Records have a few dozen
// field names, renamed thousands of times: each is renamed once.
function renamer(rename: (key: string) => string): (key: string) => string {
  const names = new Map<string, string>();
  return (key) => {
    let out = names.get(key);
    if (out === undefined) {
      out = rename(key);
      names.set(key, out);
    }
    return out;
  };
}

const snakeKey = renamer((k) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
/** The field name of a stored record for a document's key. */
export const camelKey = renamer((k) => k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()));

// Nested values of records are flat (a list of addresses, a rate limit, metadata): one level of copy keeps the
// document apart from the live records, so a caller may change it freely.
const copy = (v: unknown) => (Array.isArray(v) ? [...v] : v !== null && typeof v === 'object' ? { ...v } : v);

/** The record's own fields in snake_case (copied), minus `skip`, plus `extra`. */
function dump<T extends object>(
  record: T,
  skip: readonly string[] = [],
  extra: Record<string, unknown> = {},
) {
  const out: Record<string, unknown> = {};
  for (const k in record) if (!skip.includes(k)) out[snakeKey(k)] = copy(record[k]);
  return Object.assign(out, extra);
}

const text = new TextDecoder();

/** The whole state of a reference as a snapshot document. */
export function takeSnapshot(parts: StateParts): Snapshot {
  const { domain, webhooks } = parts;
  const { accounts } = domain;
  const web = webhooks.exportState();
  const events = new Map<string, OutgoingWebhook>();
  for (const e of web.events) events.set(e.id, e);
  const kept = new Set(events.keys());
  for (const s of web.pending) if (!events.has(s.event.id)) events.set(s.event.id, s.event);
  const doc = {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    clock: { mode: domain.clock.mode, now: domain.clock.now() },
    admin_token: parts.adminToken,
    facts: { ...parts.facts },
    merchants: [...accounts.merchants.values()].map((m) => dump(m)),
    shops: [...accounts.shops.values()].map((s) => dump(s)),
    terminals: [...accounts.terminals.values()].map((t) => dump(t)),
    api_keys: accounts.keyDigests().map(([digest, k]) => dump(k, [], { digest })),
    payments: [...domain.payments.records.values()].map((p) =>
      dump(p, ['terminal', 'refunds'], { terminal_id: p.terminal.id }),
    ),
    refunds: [...domain.refunds.records.values()].map((r) => dump(r)),
    payouts: [...domain.payouts.records.values()].map((p) =>
      dump(p, ['terminal'], { terminal_id: p.terminal.id }),
    ),
    idempotency: [...domain.idempotency.records].map(([id, e]) => {
      const cut = id.indexOf('\u0000');
      return {
        merchant_id: id.slice(0, cut),
        key: id.slice(cut + 1),
        object_id: e.objectId,
        ...dump(e, ['objectId']),
      };
    }),
    webhook_endpoints: web.endpoints.map((e) =>
      dump(e, ['attempts'], { attempts: e.attempts.map((a) => dump(a)) }),
    ),
    webhook_events: [...events.values()].map((e) => ({
      id: e.id,
      event: e.event,
      shop_id: e.shopId,
      webhook_url: e.webhookUrl,
      body: text.decode(e.body),
      kept: kept.has(e.id),
    })),
    pending_deliveries: web.pending.map((s) => ({
      event_id: s.event.id,
      endpoint_id: s.endpointId ?? null,
      attempt: s.attempt,
      due_at: s.dueAt,
    })),
    fault_rules: parts.faults?.list() ?? [],
  };
  return doc as Snapshot;
}
