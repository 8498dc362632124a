import { type Clock, ManualClock, RealClock } from './domain/clock.js';
import { createCabinet, createSimulator } from './control.js';
import { Domain } from './domain/core.js';
import { newAdminToken } from './domain/admin-token.js';
import type { StartupFacts } from './domain/accounts.js';
import type { BankAdapter } from './domain/bank.js';
import { ConnectionReset, Faults, type FaultRuleInput } from './faults/index.js';
import { createApp } from './http/app.js';
import { redactSecrets } from '../internal/redact.js';
import type { RequestInfo } from './http/context.js';
import { toResponse } from './http/errors.js';
import { createEventStreamHub } from './sse/index.js';
import { buildState, createState } from './state/index.js';
import { createWebhookService } from './webhooks/index.js';
import { type ReferenceControl, referenceControl } from './handle.js';

export type { RequestInfo, StartupFacts };

/**
 * Options of {@link createReference}; every field is optional.
 *
 * @example createReference({ clock: 'manual', publicUrl: 'https://pay.example.test' })
 */
export interface ReferenceOptions {
  /** The service clock. Default `'real'`; `'manual'` starts at `Date.now()` and stands still until advanced. */
  clock?: Clock | 'real' | 'manual' | undefined;
  /** Origin of `payment_url` (`${publicUrl}/pay/${id}`). Default: the origin of the creating request. */
  publicUrl?: string | undefined;
  /** Judge the IP allow-list by the last `X-Forwarded-For` hop instead of the socket address. Default false. */
  trustProxy?: boolean | undefined;
  /** What delivers webhooks. Default `globalThis.fetch`. */
  webhookFetch?: typeof fetch | undefined;
  /** One line per request and per internal error; never a secret. Default: silent. */
  logger?: ((line: string) => void) | undefined;
  /** The bank live keys talk to. Default: a deterministic fake bank that fills `bank` and `bank_ref`. */
  bank?: BankAdapter | undefined;
  /**
   * Start from a snapshot (`GET /_simulator/snapshot`'s document) instead of one new merchant: the facts and the
   * admin token are the document's, and a manual clock starts at its time. Default: a fresh state. A document that
   * is not a valid snapshot throws (DomainError 400 `bad_request`) before anything starts.
   *
   * @example createReference({ clock: 'manual', state: JSON.parse(await readFile('state.json', 'utf8')) })
   */
  state?: unknown;
  /**
   * Fault rules played on the public API from the start, as `POST /_simulator/faults` takes them (the contract's
   * "Faults"). Default none. A bad rule throws a TypeError naming its index and field.
   *
   * @example createReference({ seed: 7, faults: [{ kind: 'reset', phase: 'after', probability: 0.3 }] })
   */
  faults?: FaultRuleInput[] | undefined;
  /** Makes the fault rules' `probability` draws repeatable (a safe integer). Default: a random seed. */
  seed?: number | undefined;
  /**
   * Called after anything that may have changed the state: a request other than GET/HEAD/OPTIONS was answered, or
   * the domain published an event (a payment expired on the clock, a payout settled). Many calls come per second
   * under load: coalesce the work (the CLI's `--state` writes at most one file per interval). Default: none.
   *
   * @example createReference({ onChange: () => (dirty = true) })
   */
  onChange?: (() => void) | undefined;
}

/**
 * Counts of what the reference holds, for tests and benchmarks.
 *
 * @example ref.stats().payments // 0 at start
 */
export interface ReferenceStats {
  merchants: number;
  payments: number;
  refunds: number;
  payouts: number;
  idempotency_keys: number;
  scheduled_deadlines: number;
  /** Event streams ended because a newer one opened with the same API key (`: replaced`), since start. */
  streams_replaced: number;
}

/**
 * A running in-memory Payment Service, made by {@link createReference}.
 *
 * @example
 * const res = await ref.fetch(new Request('http://ref.test/openapi.json')); // no socket, no port
 */
export interface Reference extends StartupFacts, ReferenceControl {
  /** The whole service: public API, `/_cabinet`, `/_simulator` and the buyer's page at `/pay`. */
  fetch(request: Request, info?: RequestInfo): Promise<Response>;
  /**
   * The service clock. Its `now` is bound, so a webhook receiver under test verifies on the service's time:
   * `createWebhookHandler({ secret, now: ref.clock.now })` keeps verifying after `advanceClock`.
   */
  readonly clock: Clock;
  /** Counts of stored objects (not part of the contract; for tests and benchmarks). */
  stats(): ReferenceStats;
  /** Cancels timers, ends SSE streams, settles in-flight webhook deliveries. */
  close(): Promise<void>;
}

/** Methods that change nothing (a change listener is not told of them). */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

function makeClock(option: ReferenceOptions['clock']): Clock {
  if (option === undefined || option === 'real') return new RealClock();
  if (option === 'manual') return new ManualClock(Date.now());
  return option;
}

/**
 * Creates the reference Payment Service in memory. At start it holds one merchant with one shop, one terminal
 * and one test key; signatures not required, IP allow-list empty, live mode off, no webhook endpoints, rate
 * limit 1000 requests per second per merchant.
 *
 * @example
 * ```ts
 * const ref = createReference({ clock: 'manual' });
 * const psp = new PspClient({
 *   apiKey: ref.api_key,
 *   baseUrl: 'http://ref.test',
 *   fetch: (input, init) => ref.fetch(new Request(input, init)), // no socket, no port
 * });
 * const { payment } = await psp.payments.create({ amount: 1000 });
 * await ref.control.advanceClock(1800); // the payment link expires
 * await ref.close();
 * ```
 */
export function createReference(options: ReferenceOptions = {}): Reference {
  // First: a bad rule, seed or state throws before anything starts.
  const faults = new Faults({ seed: options.seed, rules: options.faults });
  const initial = options.state === undefined ? undefined : buildState(options.state, faults);
  const clock = makeClock(options.clock);
  const log = options.logger;
  const domain = new Domain({ clock, ...(options.bank ? { bank: options.bank } : {}) });
  const webhooks = createWebhookService({
    bus: domain.bus,
    clock,
    ...(options.webhookFetch ? { fetch: options.webhookFetch } : {}),
    ...(log ? { logger: log } : {}),
  });
  const hub = createEventStreamHub({ bus: domain.bus, clock });
  const { onChange } = options;
  if (onChange) domain.bus.subscribe(() => onChange());
  const cabinet = createCabinet(domain, webhooks);
  const adminToken = initial?.doc.admin_token ?? newAdminToken();
  const first = initial?.doc.facts ?? cabinet.createMerchant({ name: 'Reference merchant' });
  const state = createState({ domain, webhooks, hub, adminToken, facts: first, faults });
  if (initial) state.apply(initial);
  const simulator = {
    ...createSimulator(domain),
    ...faults.api(),
    snapshot: state.snapshot,
    restore: state.restore,
  };
  const facts: StartupFacts = Object.freeze({ admin_token: adminToken, ...first });
  const appDeps = {
    domain,
    cabinet,
    simulator,
    hub,
    adminToken,
    trustProxy: options.trustProxy ?? false,
    faults,
    ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
  };
  const app = createApp(appDeps, { log });
  let closed: Promise<void> | undefined;

  const reference: Reference = {
    ...facts,
    ...referenceControl(domain, cabinet, simulator),
    clock,
    // The app, plus what every answer leaves with: its request id, and a log line when there is a logger.
    async fetch(request, info) {
      const started = Date.now();
      const logLine = (outcome: string) => {
        if (!log) return;
        const path = redactSecrets(new URL(request.url).pathname);
        log(`${request.method} ${path.length > 200 ? `${path.slice(0, 200)}…` : path} ${outcome}`);
      };
      let res: Response;
      try {
        res = await app.fetch(request, { ...info });
      } catch (err) {
        // A fault's reset rejects, as fetch does when the connection drops; the node adapter destroys the socket.
        if (err instanceof ConnectionReset) {
          logLine('reset');
          if (onChange && !READS.has(request.method)) onChange(); // a reset after the route ran
          throw err;
        }
        res = toResponse(err, log);
      }
      try {
        // Set here, not by hono's requestId middleware: that one echoes a client's X-Request-Id, and the spec's id is
        // the service's own; here it also reaches answers made outside the app (a fault's, a failed route's).
        res.headers.set('x-request-id', `req_${crypto.randomUUID()}`);
      } catch {
        // A Response with immutable headers (a passed-through fetch) keeps them as they are.
      }
      logLine(`${res.status} ${Date.now() - started}ms`);
      if (onChange && !READS.has(request.method)) onChange();
      return res;
    },
    stats: () => ({
      merchants: domain.accounts.merchants.size,
      payments: domain.payments.size,
      refunds: domain.refunds.size,
      payouts: domain.payouts.size,
      idempotency_keys: domain.idempotency.size,
      scheduled_deadlines: domain.scheduler.size,
      streams_replaced: hub.stats().replaced,
    }),
    close() {
      closed ??= (async () => {
        faults.close();
        domain.close();
        hub.close();
        await webhooks.close();
        clock.dispose();
      })();
      return closed;
    },
  };
  return reference;
}
