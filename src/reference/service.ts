import { type Clock, ManualClock, RealClock } from './domain/clock.js';
import { createCabinet, createSimulator, merchantFacts, webhookChaosApi } from './control.js';
import { Domain } from './domain/core.js';
import { newAdminToken } from './domain/admin-token.js';
import type { StartupFacts } from './domain/accounts.js';
import { checkFixedCredentials, FixedCredentialError } from './domain/credentials.js';
import type { BankAdapter } from './domain/bank.js';
import { ConnectionReset, Faults, type FaultRuleInput } from './faults/index.js';
import { createApp } from './http/app.js';
import { hostNames } from './http/pay-page-host.js';
import { Redactor } from '../internal/redact.js';
import type { RequestInfo } from './http/context.js';
import { toResponse } from './http/errors.js';
import { createEventStreamHub } from './sse/index.js';
import { buildState, createState, type StateParts, type StateSaving } from './state/index.js';
import { type ReferenceAssertions, referenceAssertions } from './assertions.js';
import { type ReadinessReport, type ReadinessState, readiness } from './readiness/index.js';
import { createWebhookService } from './webhooks/index.js';
import { parseControl, type WebhookChaosInput } from './domain/cabinet-inputs.js';
import { type ReferenceControl, referenceControl } from './handle.js';
import {
  type JournalFilter,
  type JournalOptions,
  type JournalPage,
  RequestJournal,
} from './journal/index.js';

export type { RequestInfo, StartupFacts };

/** `webhookChaos` checked at start: a bad field is the caller's TypeError, as for every other option. */
function checkedChaos(input: WebhookChaosInput): WebhookChaosInput {
  try {
    parseControl('webhookChaos', input);
  } catch (error) {
    throw new TypeError(`webhookChaos: ${(error as Error).message}`);
  }
  return input;
}

/**
 * Options of {@link createReference}; every field is optional.
 *
 * @example createReference({ clock: 'manual', publicUrl: 'https://pay.example.test' })
 */
export interface ReferenceOptions {
  /**
   * The startup merchant's test key instead of a new one at each start, for configs and other languages'
   * tests: `sk_test_<6 letters or digits>_<secret>`, the secret part at least 24 characters and not guessable
   * (not repeated, not a run like `abcd...`, about 64 bits or more). Default: a new random key.
   * With `state`, it must be the document's startup key. Throws a TypeError (which never quotes it) otherwise.
   *
   * @example createReference({ apiKey: process.env.PSP_REFERENCE_API_KEY })
   */
  apiKey?: string | undefined;
  /**
   * The Bearer token of `/_cabinet` and `/_simulator` instead of a new one: 32 to 256 visible ASCII characters, not
   * guessable (as `apiKey`). Default: `adm_` plus 40 random characters. With `state`, it must be the document's.
   *
   * @example createReference({ adminToken: process.env.PSP_REFERENCE_ADMIN_TOKEN })
   */
  adminToken?: string | undefined;
  /**
   * The `whs_` secret that every webhook endpoint made on the startup shop gets (until its secret is rotated), so a
   * receiver's config can hold it: `whs_` plus at least 24 of `A-Za-z0-9._~+/=-`, not guessable (as `apiKey`).
   * Default: each endpoint gets a new random secret.
   *
   * @example createReference({ webhookSecret: process.env.PSP_REFERENCE_WEBHOOK_SECRET })
   */
  webhookSecret?: string | undefined;
  /** The service clock. Default `'real'`; `'manual'` starts at `Date.now()` and stands still until advanced. */
  clock?: Clock | 'real' | 'manual' | undefined;
  /** Origin of `payment_url` (`${publicUrl}/pay/${id}`). Default: the origin of the creating request. */
  publicUrl?: string | undefined;
  /**
   * Host names the buyer's page is served under, beside IP addresses, `localhost` and `publicUrl`'s host (a
   * container's service name, say). Given (an empty list too), the page refuses a request for any other `Host` with
   * 421 `misdirected_request` and the error body, so a page whose name an attacker pointed at this machine (DNS
   * rebinding) can neither read a payment nor press Pay. `startReference` always checks, with the host it listens
   * on added. Default: no check (`fetch` has no socket to rebind). An entry that is not a host name (a URL, a port)
   * throws a TypeError.
   *
   * @example createReference({ publicHost: ['psp', 'pay.internal.test'] })
   */
  publicHost?: string | readonly string[] | undefined;
  /** Judge the IP allow-list by the last `X-Forwarded-For` hop instead of the socket address. Default false. */
  trustProxy?: boolean | undefined;
  /** What delivers webhooks. Default `globalThis.fetch`. */
  webhookFetch?: typeof fetch | undefined;
  /**
   * Webhook chaos from the start, as `PUT /_simulator/webhook-chaos` takes it: each delivered event delivered again
   * with probability `duplicate`, held behind the next event of its endpoint with probability `reorder`, its first
   * attempt delayed by a time drawn from `delay` on the service clock; `seed` makes the draws repeatable. Each such
   * delivery is marked in the delivery log (`chaos`). Throws a TypeError naming a bad field. Default: off.
   *
   * @example createReference({ clock: 'manual', webhookChaos: { seed: 42, duplicate: 0.3, reorder: 0.2 } })
   */
  webhookChaos?: WebhookChaosInput | undefined;
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
  /**
   * The request journal's bounds, and whether it keeps bodies (redacted). It is always on: `ref.requests()` and
   * `GET /_simulator/requests` read it. Default `{ bodies: false, maxEntries: 1000, maxBytes: 4 MiB }`.
   *
   * @example createReference({ journal: { bodies: true } })
   */
  journal?: JournalOptions | undefined;
  /**
   * Whether the state is saved, for `GET /_simulator/health` (the CLI's `--state` passes its writer's). Default:
   * none, and the route answers `state: null` (the state lives in memory only).
   *
   * @example createReference({ stateSaving: () => saver.status() })
   */
  stateSaving?: (() => StateSaving) | undefined;
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
export interface Reference extends StartupFacts, ReferenceControl, ReferenceAssertions {
  /** The whole service: public API, `/_cabinet`, `/_simulator` and the buyer's page at `/pay`. */
  fetch(request: Request, info?: RequestInfo): Promise<Response>;
  /**
   * The service clock. Its `now` is bound, so a webhook receiver under test verifies on the service's time:
   * `createWebhookHandler({ secret, now: ref.clock.now })` keeps verifying after `advanceClock`.
   */
  readonly clock: Clock;
  /** Counts of stored objects (not part of the contract; for tests and benchmarks). */
  stats(): ReferenceStats;
  /**
   * The public requests the reference received, oldest first, as `GET /_simulator/requests` answers them: time,
   * operation, method, path, status, error code, Idempotency-Key, request id, merchant, body size and SHA-256 (and
   * the redacted body with `journal: { bodies: true }`); never a key or a secret. Filters combine with AND.
   * `dropped` counts the entries the journal's bound pushed out. A bad filter throws DomainError 400 `bad_request`.
   *
   * @example
   * ```ts
   * const { items } = ref.requests({ operation: 'payments.create' });
   * items.map((r) => r.status); // [503, 201]: one injected failure, then the retry
   * ```
   */
  requests(filter?: JournalFilter): JournalPage;
  /** Empties the journal, its dropped count too (`DELETE /_simulator/requests`); a restore does the same. */
  clearRequests(): void;
  /**
   * The readiness report (`GET /_simulator/readiness`): which behaviours a merchant integration should meet its
   * traffic exercised (`items`, `score` in percent), and the dangerous patterns it shows (`findings`:
   * `duplicate-charge`, `duplicate-side-effect`, `early-retry`, `webhook-failures`, `no-idempotency-key`). From the
   * journal, the delivery log and the state; it sees only the traffic that reached the reference.
   *
   * @example
   * ```ts
   * const report = ref.readiness({ merchant: ref.merchant_id });
   * expect(report.findings).toEqual([]);
   * ```
   */
  readiness(options?: { merchant?: string | undefined }): ReadinessReport;
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

// Over 80 lines: the wiring of one reference: each line assembles a part built in its own module.
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
  // First: a bad host name, rule, seed or state throws before anything starts.
  const { publicHost } = options;
  const publicHosts =
    publicHost === undefined
      ? undefined
      : hostNames(typeof publicHost === 'string' ? [publicHost] : publicHost);
  const faults = new Faults({ seed: options.seed, rules: options.faults });
  const { apiKey, adminToken: fixedToken, webhookSecret } = options;
  checkFixedCredentials({ apiKey, adminToken: fixedToken, webhookSecret });
  const initial = options.state === undefined ? undefined : buildState(options.state, faults);
  // A state brings its own credentials: a fixed one that differs would be silently dropped, or shadow the state's.
  if (initial && apiKey !== undefined && apiKey !== initial.doc.facts.api_key)
    throw new FixedCredentialError("apiKey is not the state's startup API key (its value is not shown)");
  if (initial && fixedToken !== undefined && fixedToken !== initial.doc.admin_token)
    throw new FixedCredentialError("adminToken is not the state's admin token (its value is not shown)");
  const clock = makeClock(options.clock);
  const log = options.logger;
  const domain = new Domain({ clock, ...(options.bank ? { bank: options.bank } : {}) });
  const webhooks = createWebhookService({
    bus: domain.bus,
    clock,
    merchants: {
      ofShop: (shopId) => domain.accounts.shops.get(shopId)?.merchantId,
      exists: (merchantId) => domain.accounts.merchants.has(merchantId),
    },
    ...(options.webhookFetch ? { fetch: options.webhookFetch } : {}),
    ...(log ? { logger: log } : {}),
    ...(options.webhookChaos === undefined ? {} : { chaos: checkedChaos(options.webhookChaos) }),
    ...(webhookSecret === undefined
      ? {}
      : { fixedSecret: (shopId: string) => (shopId === parts?.facts.shop_id ? webhookSecret : undefined) }),
  });
  const hub = createEventStreamHub({ bus: domain.bus, clock });
  // The startup shop follows a restore (parts.facts is replaced), so the fixed secret goes with the facts.
  let parts: StateParts | undefined;
  const { onChange } = options;
  if (onChange) domain.bus.subscribe(() => onChange());
  const cabinet = createCabinet(domain, webhooks);
  const adminToken = initial?.doc.admin_token ?? fixedToken ?? newAdminToken();
  const first =
    initial?.doc.facts ?? merchantFacts(domain.accounts.createMerchant('Reference merchant', apiKey));
  parts = { domain, webhooks, hub, adminToken, facts: first, faults };
  const state = createState(parts);
  if (initial) state.apply(initial);
  const simulator = {
    ...createSimulator(domain),
    ...faults.api(),
    ...webhookChaosApi(webhooks.chaos),
    snapshot: state.snapshot,
    restore: (doc: unknown) => {
      const restored = state.restore(doc);
      // A restored state starts a new story: the requests before it would name objects that may not exist.
      journal.clear();
      return restored;
    },
  };
  const facts: StartupFacts = Object.freeze({ admin_token: adminToken, ...first });
  // This reference's own redaction: its startup credentials, even without their prefix, in its error bodies and
  // log lines (and nobody else's: a client in the same process has its own).
  const redact = new Redactor([facts.api_key, facts.signing_secret, adminToken, webhookSecret]);
  const journal = new RequestJournal(clock, redact, options.journal);
  const report = (merchantId?: string) =>
    readiness({
      requests: journal.list().items,
      deliveries: webhooks.allDeliveries(),
      state: state.snapshot() as unknown as ReadinessState,
      merchantId,
      realClock: clock.mode === 'real',
    });
  const appDeps = {
    readiness: report,
    domain,
    cabinet,
    simulator,
    hub,
    webhookOwners: webhooks,
    adminToken,
    redact,
    trustProxy: options.trustProxy ?? false,
    faults,
    journal,
    ...(options.stateSaving ? { stateSaving: options.stateSaving } : {}),
    ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
    ...(publicHosts ? { publicHosts } : {}),
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
        const path = redact.text(new URL(request.url).pathname);
        log(`${request.method} ${path.length > 200 ? `${path.slice(0, 200)}…` : path} ${outcome}`);
      };
      const requestId = `req_${crypto.randomUUID()}`;
      let res: Response;
      try {
        res = await app.fetch(request, { ...info, requestId });
      } catch (err) {
        // A fault's reset rejects, as fetch does when the connection drops; the node adapter destroys the socket.
        if (err instanceof ConnectionReset) {
          logLine('reset');
          if (onChange && !READS.has(request.method)) onChange(); // a reset after the route ran
          throw err;
        }
        res = toResponse(err, redact, log);
      }
      try {
        // Set here, not by hono's requestId middleware: that one echoes a client's X-Request-Id, and the spec's id is
        // the service's own; here it also reaches answers made outside the app (a fault's, a failed route's).
        res.headers.set('x-request-id', requestId);
      } catch {
        // A Response with immutable headers (a passed-through fetch) keeps them as they are.
      }
      logLine(`${res.status} ${Date.now() - started}ms`);
      if (onChange && !READS.has(request.method)) onChange();
      return res;
    },
    requests: (filter) => journal.list(filter),
    clearRequests: () => journal.clear(),
    ...referenceAssertions(
      () => journal.list().items,
      () => webhooks.allDeliveries(),
    ),
    readiness: (o) => report(o?.merchant),
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
