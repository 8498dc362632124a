/**
 * Assertions on what a merchant's code sent and what the reference delivered (issue 41 item 3): the journal's and
 * the delivery log's own field names as filters, and an `AssertionError` that says what was expected and shows the
 * nearest entries seen, so a failing test reads like any other test framework's failure (vitest, jest, node:test).
 */
import type { OperationName } from '../schemas/operations.js';
import type { JournalEntry } from './journal/index.js';
import type { ChaosKind } from './webhooks/chaos.js';
import type { DeliveryAttempt } from './webhooks/log.js';

/**
 * What a request must match: the journal's fields (each given field must equal; `path` may be a RegExp), and `body`,
 * a predicate on the redacted body (parsed JSON where it parses; kept with `journal: { bodies: true }` only).
 *
 * @example ref.assertRequest({ operation: 'payments.create', status: 201, body: (b) => b.order_id === 'A-1' })
 */
export interface RequestFilter {
  operation?: OperationName | null | undefined;
  method?: string | undefined;
  path?: string | RegExp | undefined;
  idempotency_key?: string | null | undefined;
  merchant_id?: string | null | undefined;
  status?: number | null | undefined;
  error_code?: string | null | undefined;
  /** A predicate on the redacted body, parsed as JSON where it parses (`undefined` when bodies are not kept). */
  body?: ((body: any) => boolean) | undefined;
}

/**
 * What a delivery attempt must match: the delivery log's fields (`event` is the event's name, `event_id` its id), and
 * `endpoint_id`. A delivered attempt is one with a 2xx `status_code`.
 *
 * @example ref.assertWebhookDelivered({ event: 'payment.succeeded', event_id: eventId })
 */
export interface DeliveryFilter {
  event?: string | undefined;
  event_id?: string | undefined;
  endpoint_id?: string | undefined;
  status_code?: number | null | undefined;
  chaos?: ChaosKind | undefined;
}

/** A delivery attempt as the assertions see it: the log's entry and the endpoint it went to. */
export type DeliveryRecord = DeliveryAttempt & { endpoint_id: string };

/**
 * A failed assertion of the reference's handle: `expected` is the filter, `actual` the nearest entries seen (the
 * most fields in common first). Named `AssertionError`, as node's `assert`, vitest and jest expect of one.
 */
export class AssertionError extends Error {
  override readonly name = 'AssertionError';
  constructor(
    message: string,
    readonly expected: unknown,
    readonly actual: unknown,
  ) {
    super(message);
  }
}

const NEAREST = 3;

function parsed(body: string | null | undefined): unknown {
  if (typeof body !== 'string') return body ?? undefined;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

/** How many of `filter`'s fields `entry` matches, and whether it matches all of them. */
function score(
  entry: Record<string, unknown>,
  filter: Record<string, unknown>,
): { hits: number; all: boolean } {
  let hits = 0;
  let all = true;
  for (const [key, want] of Object.entries(filter)) {
    if (want === undefined) continue;
    let ok: boolean;
    if (key === 'body' && typeof want === 'function') {
      try {
        ok = Boolean((want as (b: unknown) => boolean)(parsed(entry.body as string | null | undefined)));
      } catch {
        ok = false;
      }
    } else if (want instanceof RegExp) ok = typeof entry[key] === 'string' && want.test(entry[key] as string);
    else ok = entry[key] === want;
    if (ok) hits++;
    else all = false;
  }
  return { hits, all };
}

const shown = (filter: object) =>
  JSON.stringify(filter, (_k, v) =>
    typeof v === 'function' ? '[predicate]' : v instanceof RegExp ? String(v) : v,
  );

function nearest<T extends object>(entries: T[], filter: object): T[] {
  return entries
    .map((entry, i) => ({
      entry,
      i,
      hits: score(entry as Record<string, unknown>, filter as Record<string, unknown>).hits,
    }))
    .sort((a, b) => b.hits - a.hits || b.i - a.i)
    .slice(0, NEAREST)
    .map((s) => s.entry);
}

function matching<T extends object>(entries: T[], filter: object): T[] {
  return entries.filter((e) => score(e as Record<string, unknown>, filter as Record<string, unknown>).all);
}

function lines(entries: object[]): string {
  return entries.length ? entries.map((e) => `  ${JSON.stringify(e)}`).join('\n') : '  (none)';
}

/** The reference handle's assertions over its journal and delivery log. */
export interface ReferenceAssertions {
  /**
   * Passes when the journal holds a request matching `filter`, and answers the newest such entry; throws
   * {@link AssertionError} otherwise, with the nearest entries seen.
   *
   * @example ref.assertRequest({ operation: 'payments.refund', status: 201 })
   */
  assertRequest(filter: RequestFilter): JournalEntry;
  /**
   * Passes when no request of the journal matches `filter`; throws {@link AssertionError} naming those that do.
   *
   * @example ref.refuteRequest({ operation: 'payments.create', idempotency_key: null }) // every create had a key
   */
  refuteRequest(filter: RequestFilter): void;
  /**
   * Passes when a delivery matching `filter` was answered with a 2xx, and answers the newest such attempt; throws
   * {@link AssertionError} otherwise. Deliveries are made in the background: in a test, retry the assertion
   * (`await vi.waitFor(() => ref.assertWebhookDelivered(...))`) or advance the manual clock first.
   *
   * @example ref.assertWebhookDelivered({ event: 'payment.succeeded' })
   */
  assertWebhookDelivered(filter: DeliveryFilter): DeliveryRecord;
  /**
   * Passes when no delivery matching `filter` was answered with a 2xx; throws {@link AssertionError} naming those that were.
   *
   * @example ref.refuteWebhookDelivered({ event: 'payment.refunded' })
   */
  refuteWebhookDelivered(filter: DeliveryFilter): void;
}

/** The assertions over a journal and a delivery log, read afresh at each call. */
export function referenceAssertions(
  requests: () => JournalEntry[],
  deliveries: () => DeliveryRecord[],
): ReferenceAssertions {
  const delivered = (filter: DeliveryFilter) =>
    matching(deliveries(), filter).filter(
      (d) => d.status_code !== null && d.status_code >= 200 && d.status_code < 300,
    );
  return {
    assertRequest(filter) {
      const all = requests();
      const found = matching(all, filter);
      if (found.length) return found[found.length - 1]!;
      const near = nearest(all, filter);
      throw new AssertionError(
        `expected a request matching ${shown(filter)} among ${all.length} in the journal; nearest:\n${lines(near)}`,
        filter,
        near,
      );
    },
    refuteRequest(filter) {
      const found = matching(requests(), filter);
      if (!found.length) return;
      throw new AssertionError(
        `expected no request matching ${shown(filter)}; found ${found.length}:\n${lines(found.slice(-NEAREST))}`,
        filter,
        found,
      );
    },
    assertWebhookDelivered(filter) {
      const found = delivered(filter);
      if (found.length) return found[found.length - 1]!;
      const all = deliveries();
      const near = nearest(all, filter);
      throw new AssertionError(
        `expected a delivered webhook (2xx) matching ${shown(filter)} among ${all.length} attempts; nearest:\n${lines(near)}`,
        filter,
        near,
      );
    },
    refuteWebhookDelivered(filter) {
      const found = delivered(filter);
      if (!found.length) return;
      throw new AssertionError(
        `expected no delivered webhook matching ${shown(filter)}; found ${found.length}:\n${lines(found.slice(-NEAREST))}`,
        filter,
        found,
      );
    },
  };
}
