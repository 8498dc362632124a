/*
 * Run a webhook's work once across replicas (issue 24, point 1). Spec 6.1: "An event may arrive more than once",
 * and a retry can land on another replica. Marking an event seen before the work loses it when the process dies;
 * marking it after lets two replicas run it at once. So the store holds a lease while the work runs, and only a
 * success turns it into a done marker. This file holds the seam and the rule; the stores (memory, Redis) live in
 * psp-sdk/replicas, so that nothing of them is bundled here unless an app imports them.
 */
import type { WebhookEvent } from './types.js';

/** What {@link WebhookDedupe.begin} found: the lease is ours (with its token), another replica runs it, or done. */
export type DedupeBegin = { state: 'started'; token: string } | { state: 'running' } | { state: 'done' };

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

/** Options of {@link onceWebhook}. */
export interface OnceWebhookOptions {
  /**
   * When the store cannot be reached: `'fail'` (default) answers 503 without running the work, so the service
   * retries later; `'run'` runs it unguarded, which keeps webhooks flowing through a store outage at the risk of
   * running an event twice (on two replicas, or again after an earlier success).
   */
  onStoreError?: 'fail' | 'run' | undefined;
  /** Told about a failed work function and store errors. Default: `console.error`. */
  onError?: ((error: unknown, event: WebhookEvent) => void) | undefined;
  /** Seconds in the `Retry-After` of a 409 for an event running elsewhere. Default 60. */
  retryAfter?: number | undefined;
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

/**
 * Runs `work` for a verified event at most once at a time across every replica sharing `store`, and not again
 * once it succeeded (within the store's keep window), and returns the answer to give. For apps that call
 * `verifyWebhook` themselves (Express, Fastify, Next.js); `createWebhookHandler({ dedupe })` does the same.
 *
 * - 200: `work` succeeded now, or the event was done before (`duplicate: true`; `work` does not run);
 * - 409 with `Retry-After`: another replica holds the event; the service delivers again later (never a 2xx, which
 *   would end delivery while the other replica may still fail);
 * - 500: `work` threw; the lease is dropped, so the next delivery runs it;
 * - 503 with `Retry-After`: the store could not be reached and `work` did not run (see `onStoreError`).
 *
 * A replica that dies inside `work` leaves its lease to run out (`leaseMs`); the next delivery after that runs it.
 * Without a store (`undefined`), `work` simply runs: 200, or 500 when it throws.
 *
 * @example
 * const event = verifyWebhook(req.body, req.headers, secret);
 * const answer = await onceWebhook(dedupe, event, () => fulfil(event));
 * res.status(answer.status).set(answer.headers).json(answer.body);
 */
export async function onceWebhook(
  store: WebhookDedupe | undefined,
  event: WebhookEvent,
  work: (event: WebhookEvent) => unknown,
  options: OnceWebhookOptions = {},
): Promise<OnceWebhookResult> {
  const { onStoreError, onError = console.error, retryAfter = 60 } = options;
  const headers = { 'retry-after': String(retryAfter) };
  const report = (e: unknown) => onError(e, event);
  const id = event.id;
  // No store, or the store was down under onStoreError 'run': an empty token, no lease to finish or drop.
  let claim: DedupeBegin = { state: 'started', token: '' };
  try {
    if (store) claim = await store.begin(id);
  } catch (e) {
    report(e);
    if (onStoreError !== 'run') return { status: 503, body: { error: 'dedupe_unavailable' }, headers };
  }
  if (claim.state === 'done') return { status: 200, body: { received: true, duplicate: true }, headers: {} };
  if (claim.state === 'running') return { status: 409, body: { error: 'in_progress' }, headers };
  const { token } = claim;
  try {
    await work(event);
  } catch (e) {
    report(e);
    // Best effort: if the store is unreachable now, the lease runs out by itself.
    if (token) await store?.abandon(id, token).catch(report);
    return { status: 500, body: { error: 'handler_failed' }, headers: {} };
  }
  // The work is done: answer 2xx even if the marker cannot be written, since a non-2xx would make the service
  // deliver again and, once the lease ran out, run it twice. A lost lease means `leaseMs` is below the work's time.
  if (token && !(await store?.finish(id, token).catch(report)))
    report(new Error(`webhook ${id}: not marked done (lease ran out, or store unreachable)`));
  return { status: 200, body: { received: true }, headers: {} };
}
