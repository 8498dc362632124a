/**
 * The readiness report (issue 41 item 2): what a merchant's integration met of what production will put to it, and
 * the dangerous patterns its traffic shows, from what the reference saw: the request journal, the delivery log and
 * the state (payments, refunds, payouts, events). Pure: it reads, and changes nothing. It sees only the traffic that
 * reached the reference (docs/reliability.md says so).
 */
import { CODE, type ErrorCode } from '../../schemas/errors.js';
import type { DeliveryRecord } from '../assertions.js';
import type { JournalEntry } from '../journal/index.js';

/** A behaviour a merchant integration should have met, and whether the traffic shows it did. */
export interface ReadinessItem {
  id: string;
  title: string;
  exercised: boolean;
  /** What showed it (request seqs, object or event ids), or what would. */
  evidence: string;
}

/** A dangerous pattern seen in the traffic. */
export interface ReadinessFinding {
  id:
    | 'duplicate-charge'
    | 'duplicate-side-effect'
    | 'early-retry'
    | 'webhook-failures'
    | 'no-idempotency-key';
  severity: 'high' | 'medium' | 'low';
  /** The requests or deliveries that show it. */
  evidence: string;
}

/** `GET /_simulator/readiness`: `score` is the exercised share of `items`, in percent. */
export interface ReadinessReport {
  score: number;
  items: ReadinessItem[];
  findings: ReadinessFinding[];
  /** The merchant it is about, or null for every merchant. */
  merchant_id: string | null;
}

/** What the report reads of the state: the parts of a snapshot it needs. */
export interface ReadinessState {
  terminals: Array<{ id: string; merchant_id: string }>;
  shops: Array<{ id: string; merchant_id: string }>;
  payments: Array<{
    id: string;
    terminal_id: string;
    order_id: string | null;
    status: string;
    amount: number;
    amount_refunded: number;
  }>;
  refunds: Array<{ id: string; payment_id: string; amount: number; status: string }>;
  payouts: Array<{ id: string; terminal_id: string; status: string }>;
  webhook_endpoints: Array<{ id: string; shop_id: string; signature_version: string }>;
  webhook_events: Array<{ id: string; body: string }>;
}

/** What the report is made from. */
export interface ReadinessInput {
  requests: JournalEntry[];
  deliveries: DeliveryRecord[];
  state: ReadinessState;
  /** Only this merchant's traffic and objects; undefined for all. */
  merchantId?: string | undefined;
  /** Whether the service clock is the wall clock: `early-retry` compares request times only then. */
  realClock: boolean;
}

const ok = (status: number | null) => status !== null && status >= 200 && status < 300;
const list = (xs: string[], max = 5) =>
  xs.length > max ? `${xs.slice(0, max).join(', ')} (+${xs.length - max} more)` : xs.join(', ');

/** The refusals a merchant's calls can meet and should handle, each an item when the traffic met it. */
const REFUSALS: Array<[code: ErrorCode, title: string]> = [
  [CODE.bad_request, 'a request refused as invalid (400 bad_request) handled'],
  [CODE.unauthorized, 'a refused API key (401 unauthorized) handled'],
  [CODE.not_found, 'an unknown id (404 not_found) handled'],
  [CODE.not_pending, 'a cancel of a payment no longer pending (409 not_pending) handled'],
  [CODE.amount_exceeds_balance, 'a refund over the balance (422 amount_exceeds_balance) handled'],
];

// Over 80 lines: the items and findings, each a few lines over the same indexes of the traffic.
/** Builds the report. */
export function readiness(input: ReadinessInput): ReadinessReport {
  const m = input.merchantId;
  const terminalMerchant = new Map(input.state.terminals.map((t) => [t.id, t.merchant_id]));
  const shopMerchant = new Map(input.state.shops.map((s) => [s.id, s.merchant_id]));
  const mine = (terminalId: string) => m === undefined || terminalMerchant.get(terminalId) === m;
  const requests = input.requests.filter((r) => m === undefined || r.merchant_id === m);
  const endpoints = input.state.webhook_endpoints.filter(
    (e) => m === undefined || shopMerchant.get(e.shop_id) === m,
  );
  const endpointIds = new Set(endpoints.map((e) => e.id));
  const deliveries = input.deliveries.filter((d) => endpointIds.has(d.endpoint_id));
  const payments = input.state.payments.filter((p) => mine(p.terminal_id));
  const paymentIds = new Set(payments.map((p) => p.id));
  const refunds = input.state.refunds.filter((r) => paymentIds.has(r.payment_id));
  const payouts = input.state.payouts.filter((p) => mine(p.terminal_id));

  const items: ReadinessItem[] = [];
  const item = (id: string, title: string, seen: string[], otherwise: string) =>
    items.push({ id, title, exercised: seen.length > 0, evidence: seen.length ? list(seen) : otherwise });

  for (const status of ['succeeded', 'failed', 'expired', 'cancelled', 'refunded'])
    item(
      `payment-${status}`,
      `a payment ${status}`,
      payments.filter((p) => p.status === status).map((p) => p.id),
      `no payment reached ${status}`,
    );
  const byPayment = new Map(payments.map((p) => [p.id, p]));
  item(
    'refund-partial',
    'a partial refund',
    refunds
      .filter((r) => r.status === 'succeeded' && r.amount < (byPayment.get(r.payment_id)?.amount ?? 0))
      .map((r) => r.id),
    'no refund of part of a payment',
  );
  item(
    'refund-full',
    'a full refund',
    payments.filter((p) => p.amount_refunded > 0 && p.amount_refunded === p.amount).map((p) => p.id),
    'no payment refunded whole',
  );
  for (const status of ['succeeded', 'failed'])
    item(
      `payout-${status}`,
      `a payout ${status}`,
      payouts.filter((p) => p.status === status).map((p) => p.id),
      `no payout ${status}`,
    );
  item(
    'idempotency-conflict',
    'an Idempotency-Key reused with another body (409 idempotent_conflict) handled',
    requests.filter((r) => r.error_code === CODE.idempotent_conflict).map((r) => `request #${r.seq}`),
    'no 409 idempotent_conflict met',
  );
  item(
    'rate-limit-waited-out',
    'a 429 waited out: a later request of the same operation answered',
    rateLimitsWaitedOut(requests),
    'no 429 followed by a successful retry',
  );
  for (const [code, title] of REFUSALS)
    item(
      `refusal-${code}`,
      title,
      requests.filter((r) => r.error_code === code).map((r) => `request #${r.seq}`),
      `no ${code} met`,
    );
  item(
    'webhook-retried',
    'a webhook answered non-2xx, then retried and acknowledged',
    retriedDeliveries(deliveries),
    'no delivery failed and then succeeded',
  );
  item(
    'webhook-duplicate',
    'a duplicate delivery met (webhook chaos `duplicate`)',
    deliveries.filter((d) => d.chaos === 'duplicate' && ok(d.status_code)).map((d) => d.event_id),
    'no duplicate delivery: turn on webhook chaos',
  );
  item(
    'webhook-reordered',
    'a reordered delivery met (webhook chaos `reorder`)',
    deliveries.filter((d) => d.chaos === 'reordered' && ok(d.status_code)).map((d) => d.event_id),
    'no reordered delivery: turn on webhook chaos',
  );
  for (const version of ['v1', 'v2']) {
    const ids = new Set(endpoints.filter((e) => e.signature_version === version).map((e) => e.id));
    item(
      `signature-${version}`,
      `webhooks signed ${version} verified (a 2xx answer)`,
      deliveries.filter((d) => ids.has(d.endpoint_id) && ok(d.status_code)).map((d) => d.event_id),
      `no endpoint with signature_version ${version} acknowledged a delivery`,
    );
  }
  const streams = requests.filter((r) => r.operation === 'events.stream' && r.status === 200);
  item(
    'stream-reconnected',
    'the event stream reconnected (two or more connections of one merchant)',
    streams.length >= 2 ? streams.map((r) => `request #${r.seq}`) : [],
    'the event stream was opened at most once',
  );

  const findings = [
    ...duplicateCharges(payments),
    ...duplicateSideEffects(deliveries, requests, input.state.webhook_events),
    ...(input.realClock ? earlyRetries(requests) : []),
    ...webhookFailures(deliveries),
    ...missingKeys(requests),
  ];
  const score = items.length ? Math.round((100 * items.filter((i) => i.exercised).length) / items.length) : 0;
  return { score, items, findings, merchant_id: m ?? null };
}

function rateLimitsWaitedOut(requests: JournalEntry[]): string[] {
  const seen: string[] = [];
  for (const [i, r] of requests.entries()) {
    if (r.status !== 429) continue;
    const later = requests
      .slice(i + 1)
      .find((x) => x.merchant_id === r.merchant_id && x.operation === r.operation && ok(x.status));
    if (later) seen.push(`request #${r.seq} then #${later.seq}`);
  }
  return seen;
}

function retriedDeliveries(deliveries: DeliveryRecord[]): string[] {
  const failed = new Set<string>();
  const seen: string[] = [];
  for (const d of deliveries) {
    const key = `${d.endpoint_id} ${d.event_id}`;
    if (!ok(d.status_code)) failed.add(key);
    else if (failed.has(key) && d.attempt > 1) seen.push(d.event_id);
  }
  return seen;
}

function duplicateCharges(payments: ReadinessState['payments']): ReadinessFinding[] {
  const byOrder = new Map<string, typeof payments>();
  for (const p of payments) {
    if (!p.order_id) continue;
    byOrder.set(p.order_id, [...(byOrder.get(p.order_id) ?? []), p]);
  }
  const out: ReadinessFinding[] = [];
  for (const [order, list] of byOrder) {
    if (list.length < 2) continue;
    const charged = list.filter(
      (p) => p.status === 'succeeded' || p.status === 'refunded' || p.status === 'processing',
    );
    out.push({
      id: 'duplicate-charge',
      severity: charged.length >= 2 ? 'high' : 'medium',
      evidence: `order_id ${JSON.stringify(order)}: ${list.length} payments under different Idempotency-Keys (${list
        .map((p) => `${p.id} ${p.status}`)
        .join(', ')}); key creations by the order so a retry cannot create a second one`,
    });
  }
  return out;
}

/** The object an event is about: its `data.id`. */
function objectOf(events: ReadinessState['webhook_events']): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of events) {
    try {
      const id = (JSON.parse(e.body) as { data?: { id?: unknown } | undefined }).data?.id;
      if (typeof id === 'string') out.set(e.id, id);
    } catch {}
  }
  return out;
}

function duplicateSideEffects(
  deliveries: DeliveryRecord[],
  requests: JournalEntry[],
  events: ReadinessState['webhook_events'],
): ReadinessFinding[] {
  const objects = objectOf(events);
  const acknowledged = new Map<string, DeliveryRecord[]>();
  for (const d of deliveries) {
    if (!ok(d.status_code)) continue;
    const key = `${d.endpoint_id} ${d.event_id}`;
    acknowledged.set(key, [...(acknowledged.get(key) ?? []), d]);
  }
  const out: ReadinessFinding[] = [];
  for (const [, times] of acknowledged) {
    if (times.length < 2) continue;
    const first = times[0]!;
    const object = objects.get(first.event_id);
    if (!object) continue;
    // State-changing requests on the event's object, from the first delivery on, under different keys.
    const acts = requests.filter(
      (r) => r.method === 'POST' && r.path.includes(object) && ok(r.status) && r.time >= first.at,
    );
    const keys = new Set(acts.map((r) => r.idempotency_key ?? `none #${r.seq}`));
    if (acts.length >= 2 && keys.size >= 2)
      out.push({
        id: 'duplicate-side-effect',
        severity: 'high',
        evidence: `event ${first.event_id} (${first.event}) was delivered ${times.length} times and ${acts.length} state-changing requests on ${object} followed under different keys (${list(acts.map((r) => `#${r.seq} ${r.operation}`))}): the handler acted once per delivery; dedupe by the event id`,
      });
  }
  return out;
}

function earlyRetries(requests: JournalEntry[]): ReadinessFinding[] {
  const out: string[] = [];
  for (const [i, r] of requests.entries()) {
    if (r.status !== 429 || r.retry_after === null) continue;
    const due = Date.parse(r.time) + r.retry_after * 1000;
    const next = requests.slice(i + 1).find((x) => x.merchant_id === r.merchant_id);
    if (next && Date.parse(next.time) < due)
      out.push(`#${r.seq} (Retry-After ${r.retry_after} s) then #${next.seq} at ${next.time}`);
  }
  return out.length
    ? [
        {
          id: 'early-retry',
          severity: 'medium',
          evidence: `requests sooner than the Retry-After of the 429 before them: ${list(out)}`,
        },
      ]
    : [];
}

function webhookFailures(deliveries: DeliveryRecord[]): ReadinessFinding[] {
  const failed = deliveries.filter((d) => !ok(d.status_code));
  if (!failed.length) return [];
  return [
    {
      id: 'webhook-failures',
      severity: 'medium',
      evidence: `${failed.length} delivery attempts not acknowledged with a 2xx within 15 s: ${list(
        failed.map((d) => `${d.event_id} ${d.event} attempt ${d.attempt}: ${d.error ?? d.status_code}`),
        3,
      )}`,
    },
  ];
}

function missingKeys(requests: JournalEntry[]): ReadinessFinding[] {
  const bare = requests.filter(
    (r) =>
      (r.operation === 'payments.create' ||
        r.operation === 'payouts.create' ||
        r.operation === 'payments.refund') &&
      r.idempotency_key === null,
  );
  return bare.length
    ? [
        {
          id: 'no-idempotency-key',
          severity: 'low',
          evidence: `${bare.length} creations sent without an Idempotency-Key (${list(bare.map((r) => `#${r.seq} ${r.operation}`))}): a retry of one may create another`,
        },
      ]
    : [];
}
