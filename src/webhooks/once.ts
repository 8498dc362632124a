/*
 * Run a webhook's work once across replicas (issue 24, point 1). Spec 6.1: "An event may arrive more than once",
 * and a retry can land on another replica. Marking an event seen before the work loses it when the process dies;
 * marking it after lets two replicas run it at once. So the store holds a lease while the work runs, and only a
 * success turns it into a done marker. This file holds the seam and the rule; the stores (memory, Redis) live in
 * psp-sdk/replicas, so that nothing of them is bundled here unless an app imports them.
 */
import { TIMED_OUT, withDeadline } from '../internal/deadline.js';
import type { WebhookEvent } from './types.js';

/**
 * What {@link WebhookDedupe.begin} found: the lease is ours, another replica runs it, or done. A started lease
 * carries its token and, from the stores of `psp-sdk/replicas`, its `fence` (grows with every `begin` of the
 * event id) and a `signal` that aborts when the lease is lost. A store of your own may leave both out.
 *
 * @example
 * const claim = await store.begin('evt_1');
 * if (claim.state === 'started') console.log(claim.fence, claim.signal?.aborted); // 1 false
 */
export type DedupeBegin =
  | { state: 'started'; token: string; fence?: number | undefined; signal?: AbortSignal | undefined }
  | { state: 'running' }
  | { state: 'done' };

/**
 * What a handler run under dedupe receives beside the event (`createWebhookHandler`'s handlers, `onceWebhook`'s
 * work).
 *
 * @example
 * // Write only if no newer run of this event wrote before (PostgreSQL):
 * const fulfil = async (event: WebhookEvent, { signal, fence }: WebhookRunContext) => {
 *   signal.throwIfAborted(); // the lease is lost: another replica may run the event now
 *   await sql`UPDATE orders SET paid = true, fence = ${fence} WHERE id = ${event.data.order_id} AND fence < ${fence}`;
 * };
 */
export interface WebhookRunContext {
  /**
   * Aborts when this replica's lease on the event is lost or cannot be renewed in time, before it can run out
   * in the store: stop, another replica may run the event from then on. Never aborts without a store, or with a
   * store that gives no signal.
   */
  signal: AbortSignal;
  /**
   * A number that grows with every run of this event id (every `begin`), while the store keeps its data. Write a
   * side effect only where no larger fence wrote before (`UPDATE ... WHERE fence < $1`), and a replica that lost
   * its lease cannot overwrite the run after it. `undefined` without a store, or from a store that gives none.
   */
  fence: number | undefined;
}

/**
 * A shared record of which webhook events are being handled or were handled. Each method is one atomic step in
 * the store. `memoryDedupe()` and `redisDedupe(client)` from `psp-sdk/replicas` implement it; another store
 * (SQL, DynamoDB) can, with the same three steps.
 *
 * @example
 * const claim = await store.begin(event.id);
 * if (claim.state === 'started') {
 *   await work();
 *   await store.finish(event.id, claim.token);
 * }
 */
export interface WebhookDedupe {
  /** Takes the lease on `eventId` if it is neither running (a live lease) nor done (within the keep window). */
  begin(eventId: string): Promise<DedupeBegin>;
  /** Marks the event done for the keep window, if `token` still holds the lease; false when it does not. */
  finish(eventId: string, token: string): Promise<boolean>;
  /** Drops the lease so the next delivery runs the event, if `token` still holds it; false when it does not. */
  abandon(eventId: string, token: string): Promise<boolean>;
}

/**
 * The default `onError` of {@link onceWebhook} and `createWebhookHandler`: one `console.error` line naming the
 * event by id and name, with the error. The event itself is left out: its data holds the payer's details (email,
 * phone, description, metadata), which have no place in an app's default logs. Pass your own `onError` to log more.
 *
 * @example
 * createWebhookHandler({ secret, on, onError: (error, event) => logger.error({ err: error, id: event.id }) });
 */
export function logWebhookError(error: unknown, event: WebhookEvent): void {
  console.error(`psp-sdk: webhook ${event.id} (${event.event}) failed:`, error);
}

/** Options of {@link onceWebhook}. */
export interface OnceWebhookOptions {
  /**
   * When the store cannot be reached: `'fail'` (default) answers 503 without running the work, so the service
   * retries later; `'run'` runs it unguarded, which keeps webhooks flowing through a store outage at the risk of
   * running an event twice (on two replicas, or again after an earlier success).
   */
  onStoreError?: 'fail' | 'run' | undefined;
  /**
   * Told about a failed work function and store errors. Default: {@link logWebhookError}, one `console.error` line
   * with the event's id and name and the error, never the event's data (the payer's details stay out of logs).
   */
  onError?: ((error: unknown, event: WebhookEvent) => void) | undefined;
  /** Seconds in the `Retry-After` of a 409 for an event running elsewhere. Default 60. */
  retryAfter?: number | undefined;
  /**
   * Most milliseconds to wait for the store's `begin` or `finish`. A store that does not answer in time counts as
   * unreachable (`begin`: 503, so the service delivers again later; `finish`: reported, 200), so a stalled Redis
   * never holds a delivery past the service's 15 s deadline. Default 2 000.
   *
   * @example
   * onceWebhook(dedupe, event, work, { storeTimeoutMs: 1_000 })
   */
  storeTimeoutMs?: number | undefined;
  /**
   * The namespace of the event ids in the store: two apps (two endpoints of one shop) on one store each run
   * every event, since the service sends each endpoint the same event id. The store's key is `<app>:<event id>`;
   * `''` keeps the bare id (the keys of earlier versions). Default `''` here; `createWebhookHandler` defaults it
   * to a digest of the endpoint's secret.
   *
   * @example
   * onceWebhook(dedupe, event, work, { app: 'fulfilment' })
   */
  app?: string | undefined;
}

/** The answer to give the service, as {@link onceWebhook} decided it. */
export interface OnceWebhookResult {
  /** 200 handled now or before; 409 running on another replica; 500 the work threw; 503 store unreachable. */
  status: 200 | 409 | 500 | 503;
  /** The JSON body to answer with: `{ received: true }` (with `duplicate: true` when done before) or `{ error }`. */
  body:
    | { received: true; duplicate?: true | undefined }
    | { error: 'in_progress' | 'handler_failed' | 'dedupe_unavailable' };
  /** Headers to send: `Retry-After` with the 409 and the 503. */
  headers: Record<string, string>;
}

/** A promise that rejects after `ms` (and leaves no timer behind once it settles). */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  const got = await withDeadline(promise, ms);
  if (got === TIMED_OUT) throw new Error(`dedupe store: no answer to ${what} within ${ms} ms`);
  return got;
}

/**
 * Runs `work` for a verified event once across every replica sharing `store` while one holds a live lease on it
 * (renewed while `work` runs), and not again once it succeeded (within the store's keep window), and returns the
 * answer to give. For apps that call `verifyWebhook` themselves (Express, Fastify, Next.js);
 * `createWebhookHandler({ dedupe })` does the same.
 *
 * - 200: `work` succeeded now, or the event was done before (`duplicate: true`; `work` does not run);
 * - 409 with `Retry-After`: another replica holds the event; the service delivers again later (never a 2xx, which would end delivery while the other replica may still fail);
 * - 500: `work` threw; the lease is dropped, so the next delivery runs it;
 * - 503 with `Retry-After`: the store could not be reached, or not within `storeTimeoutMs`, and `work` did not run
 *   (see `onStoreError`).
 *
 * `work` gets `{ signal, fence }` ({@link WebhookRunContext}): the signal aborts when the lease is lost (a pause
 * past it, a store that stops answering), and `finish` then marks the event done only if the store still holds
 * this run's token (no other replica can have begun it); the fence orders the runs of the
 * event for writes that must not be overwritten by a late one. At most one replica runs the event while holding
 * a live lease; a side effect that must happen exactly once needs the fence or an idempotent write as well
 * (a replica can pause between its last check and its write). A replica that dies inside `work` leaves its
 * lease to run out (`leaseMs`); the next delivery after that runs it. Without a store (`undefined`), `work`
 * simply runs: 200, or 500 when it throws.
 *
 * @example
 * const event = verifyWebhook(req.body, req.headers, secret);
 * const answer = await onceWebhook(dedupe, event, (e, { fence }) => fulfil(e, fence), { app: 'fulfilment' });
 * res.status(answer.status).set(answer.headers).json(answer.body);
 */
export async function onceWebhook(
  store: WebhookDedupe | undefined,
  event: WebhookEvent,
  work: (event: WebhookEvent, context: WebhookRunContext) => unknown,
  options: OnceWebhookOptions = {},
): Promise<OnceWebhookResult> {
  const {
    onStoreError,
    onError = logWebhookError,
    retryAfter = 60,
    storeTimeoutMs = 2000,
    app = '',
  } = options;
  if (!(Number.isSafeInteger(storeTimeoutMs) && storeTimeoutMs > 0))
    throw new TypeError('onceWebhook: storeTimeoutMs must be a positive integer of milliseconds');
  const headers = { 'retry-after': String(retryAfter) };
  const report = (e: unknown) => onError(e, event);
  const id = app ? `${app}:${event.id}` : event.id;
  // No store, or the store was down under onStoreError 'run': an empty token, no lease to finish or drop.
  let claim: DedupeBegin = { state: 'started', token: '' };
  if (store) {
    const beginning = store.begin(id);
    try {
      claim = await within(beginning, storeTimeoutMs, 'begin');
    } catch (e) {
      report(e);
      // A lease granted after we stopped waiting is given back at once, so the next delivery need not wait it out.
      void beginning.then(
        (late) => late.state === 'started' && store.abandon(id, late.token).catch(report),
        () => {},
      );
      if (onStoreError !== 'run') return { status: 503, body: { error: 'dedupe_unavailable' }, headers };
    }
  }
  if (claim.state === 'done') return { status: 200, body: { received: true, duplicate: true }, headers: {} };
  if (claim.state === 'running') return { status: 409, body: { error: 'in_progress' }, headers };
  // A store without leases (or none) gives no signal: the run's own never aborts. Made per run, not at module
  // scope: Cloudflare's workerd refuses an AbortController made in the global scope (the edge package test).
  const { token, fence, signal = new AbortController().signal } = claim;
  try {
    await work(event, { signal, fence });
  } catch (e) {
    report(e);
    // Best effort: if the store is unreachable now, the lease runs out by itself.
    if (token && store) await within(store.abandon(id, token), storeTimeoutMs, 'abandon').catch(report);
    return { status: 500, body: { error: 'handler_failed' }, headers: {} };
  }
  // The work is done: answer 2xx even if the marker cannot be written, since a non-2xx would make the service
  // deliver again and run it twice. Even after the signal aborted, finish is asked: the store marks the event
  // done only while this run's token still holds it, i.e. while no other replica can have begun it, and a marker
  // then spares a rerun. Refused, the work outlived its lease (a pause, a store cut off): only the fence or an
  // idempotent write keeps its side effect single.
  if (token && store) {
    const marked = await within(store.finish(id, token), storeTimeoutMs, 'finish').catch((e: unknown) => {
      report(e);
      return undefined;
    });
    if (marked === false)
      report(
        new Error(`webhook ${event.id}: not marked done: the lease was lost while the handler ran`, {
          cause: signal.reason,
        }),
      );
  }
  return { status: 200, body: { received: true }, headers: {} };
}
