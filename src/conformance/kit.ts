// What every check works with: the wire (wire.ts: raw requests, recorded for a failure's report), the SDK's own
// client, the reference's control surface when there is one, the budgets (budget.ts), and the fixtures a check
// builds on (payments, merchants, the buyer's page, service time) with the clean-up of what the run made.
import { PspApiError, readText } from '../client/api-errors.js';
import { PspClient } from '../psp-client.js';
import { Redactor, redactSecrets } from '../internal/redact.js';
import { OPERATIONS, type OperationName, PUBLIC_PREFIX, pathOf } from '../schemas/operations.js';
import { Budget, REQUEST_TIMEOUT_MS } from './budget.js';
import { CheckFailure, CheckSkipped, NeedsControl } from './outcomes.js';
import type { Receiver } from './receiver.js';
import { send, show, type WireAnswer, type WireOptions } from './wire.js';

export { show, type WireAnswer, type WireOptions } from './wire.js';

/** The operations whose path names a payment or a payout: a request to one of them takes its id. */
export type OperationWithId = {
  [N in OperationName]: (typeof OPERATIONS)[N] extends { id: string } ? N : never;
}[OperationName];

/** A merchant the kit made through the reference's cabinet, for a rule that needs its own settings. */
export interface KitMerchant {
  merchant_id: string;
  shop_id: string;
  terminal_id: string;
  api_key: string;
  signing_secret: string;
}

/** Settings of a {@link Kit}, resolved by `run.ts`. */
export interface KitSettings {
  baseUrl: string;
  apiKey: string;
  signingSecret: string | undefined;
  adminToken: string | undefined;
  fetch: typeof fetch;
  maxRequests: number;
  deadline: number;
}

const CLEANUP_TIME_LIMIT_MS = 30_000;

/** The state of one run, shared by its checks. */
export class Kit {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly signingSecret: string | undefined;
  /** Set once the admin token reached the reference's clock (run.ts). */
  control: { token: string; clock: 'manual' | 'real' } | undefined;
  /** Set when the webhook checks can run (run.ts). */
  receiver: Receiver | undefined;
  /** The `whs_` secret that signs what reaches the receiver, and the merchant whose payments carry it. */
  webhooks:
    | {
        secret: string;
        url: string;
        client: PspClient;
        key: string;
        signingSecret: string | undefined;
        merchant: KitMerchant | undefined;
        /** The webhook endpoint the kit made through the cabinet (whose delivery log it can read). */
        endpointId?: string | undefined;
      }
    | undefined;
  /** Payments this run created, by id, with the credentials that see them: each one still pending is cancelled. */
  readonly payments = new Map<string, Credentials>();
  /** The run's budgets and the lifetime of the check in progress. */
  readonly budget: Budget;
  readonly #settings: KitSettings;
  #client: PspClient | undefined;

  /** The run's own redaction (its key, signing secret and admin token, even without their prefix): see `runOne`. */
  readonly redact: Redactor;

  constructor(settings: KitSettings) {
    this.#settings = settings;
    this.budget = new Budget({ maxRequests: settings.maxRequests, deadline: settings.deadline });
    this.redact = new Redactor([settings.apiKey, settings.signingSecret, settings.adminToken]);
    this.baseUrl = settings.baseUrl;
    this.apiKey = settings.apiKey;
    this.signingSecret = settings.signingSecret;
  }

  /** Requests sent so far. */
  get requests(): number {
    return this.budget.requests;
  }

  /** Aborts when the check in progress ends. */
  get signal(): AbortSignal | undefined {
    return this.budget.signal;
  }

  /** Waits `ms` of real time, ending early when the check ends. */
  sleep(ms: number): Promise<void> {
    return this.budget.sleep(ms);
  }

  /** The fetch every request of the run goes through (the SDK client's too): counted and bounded. */
  readonly fetch: typeof fetch = (input, init) => {
    this.budget.spend();
    return this.#settings.fetch(input, init);
  };

  /**
   * The SDK's own client with the run's key, strict (an answer with a field or value the spec
   * does not list is an error), with its retries: a 429 is waited out with its own backoff.
   */
  client(): PspClient {
    this.#client ??= this.#make(this.apiKey, this.signingSecret);
    return this.#client;
  }

  #make(key: string, signingSecret: string | undefined): PspClient {
    const client = new PspClient({
      apiKey: key,
      baseUrl: this.baseUrl,
      // Never the environment's: a cabinet merchant's client signs as its own terminal or not at all.
      signingSecret: signingSecret ?? null,
      strict: true,
      maxRetries: 3,
      logLevel: 'off',
      telemetry: false,
      fetch: this.fetch,
    });
    credentials.set(client, { key, secret: signingSecret });
    return client;
  }

  /** The SDK client of a merchant the kit made through the cabinet. */
  clientOf(merchant: KitMerchant, signed = false): PspClient {
    return this.#make(merchant.api_key, signed ? merchant.signing_secret : undefined);
  }

  /** A raw request to `path` (under the base URL), read whole (wire.ts). A 429 is waited out unless `keep429`. */
  send(method: string, path: string, options: WireOptions = {}): Promise<WireAnswer> {
    return send(this, method, path, options);
  }

  /**
   * A raw request to an operation of the public API (spec 4), its method and path from the table of operations:
   * `send` below the public prefix, with `id` in the path of an operation that names one.
   */
  api(name: OperationWithId, id: string, options?: WireOptions): Promise<WireAnswer>;
  api(name: Exclude<OperationName, OperationWithId>, options?: WireOptions): Promise<WireAnswer>;
  api(name: OperationName, ...rest: [string, WireOptions?] | [WireOptions?]): Promise<WireAnswer> {
    const [id, options] = typeof rest[0] === 'string' ? [rest[0], rest[1]] : [undefined, rest[0]];
    return this.send(OPERATIONS[name].method, `${PUBLIC_PREFIX}${pathOf(name, id)}`, options);
  }

  /** Runs a call of the SDK client; a refusal or a bad answer fails the check, showing what came back. */
  async sdk<T>(what: string, call: () => PromiseLike<T>): Promise<T> {
    // Checked before the call: inside it, the client would take a spent budget for a network failure and retry.
    this.budget.ensure();
    try {
      return await call();
    } catch (error) {
      if (error instanceof CheckSkipped || error instanceof NeedsControl) throw error;
      if (error instanceof PspApiError) {
        throw new CheckFailure(`${what}: ${error.status} ${error.code}: ${error.message}`, {
          request: what,
          status: error.status,
          requestId: error.requestId,
          body: redactSecrets(JSON.stringify({ error: { code: error.code, message: error.message } })),
        });
      }
      if ((error as Error).cause instanceof CheckSkipped) throw (error as Error).cause;
      throw new CheckFailure(`${what}: ${redactSecrets(String((error as Error).message ?? error))}`);
    }
  }

  /** Creates a test payment through the SDK and remembers it for the clean-up. */
  async createPayment(
    input: { amount: number } & Record<string, unknown>,
    client: PspClient = this.client(),
  ): Promise<{ id: string; payment_url: string; status: string; simulator?: string | undefined }> {
    const res = await this.sdk('payments.create', () =>
      client.payments.create(input as Parameters<PspClient['payments']['create']>[0]),
    );
    this.payments.set(
      res.payment.id,
      credentials.get(client) ?? { key: this.apiKey, secret: this.signingSecret },
    );
    return {
      id: res.payment.id,
      payment_url: res.payment_url,
      status: res.payment.status,
      simulator: res.simulator,
    };
  }

  /**
   * A test payment of `amount` (a plain amount: its planned outcome is success) that the buyer paid on its page,
   * read back once it is `succeeded`.
   */
  async succeededPayment(amount: number, client: PspClient = this.client()): Promise<{ id: string }> {
    const made = await this.createPayment({ amount, order_id: 'kit-paid' }, client);
    await this.pay(made);
    await this.until(
      `payment ${made.id} did not become succeeded after the buyer paid`,
      () => this.sdk('payments.get', () => client.payments.get(made.id)),
      (p) => p.status === 'succeeded',
    );
    return made;
  }

  /** A control request with the admin token; without one, the check needs control. */
  async admin(method: string, path: string, body?: unknown): Promise<unknown> {
    if (!this.control) throw new NeedsControl(`${method} ${path} is the reference's control surface`);
    const res = await this.send(method, path, {
      key: this.control.token,
      signWith: null,
      ...(body === undefined ? {} : { body }),
    });
    if (res.status >= 300) {
      throw new CheckFailure(`the reference's ${method} ${path} answered ${res.status}`, res.observed);
    }
    return res.json;
  }

  /** A new merchant through the cabinet (then patched with `settings`), for a rule that needs its own settings. */
  async merchant(settings?: Record<string, unknown>): Promise<KitMerchant> {
    const made = (await this.admin('POST', '/_cabinet/merchants', { name: 'contract kit' })) as KitMerchant;
    if (settings) await this.admin('PATCH', `/_cabinet/merchants/${made.merchant_id}`, settings);
    return made;
  }

  /**
   * Lets `seconds` pass on the service's clock: the reference's manual clock is advanced, anything else is
   * waited for in real time.
   */
  async elapse(seconds: number): Promise<void> {
    if (this.control?.clock === 'manual') {
      await this.admin('POST', '/_simulator/clock/advance', { seconds });
      return;
    }
    await this.budget.sleep(seconds * 1000);
  }

  /**
   * The buyer pays on the page at `payment_url` (the spec's public means): the page's Pay form is posted. A page
   * without a form the kit recognises needs the reference's simulator.
   */
  async pay(payment: { id: string; payment_url: string }, action: 'pay' | 'decline' = 'pay'): Promise<void> {
    this.budget.spend();
    let url: URL;
    try {
      url = new URL(payment.payment_url);
    } catch {
      throw new CheckFailure(`payment ${payment.id}: payment_url ${show(payment.payment_url)} is not a URL`);
    }
    let page: Response;
    let html: string;
    try {
      page = await this.#settings.fetch(url, { redirect: 'manual', signal: this.budget.requestSignal() });
      html = await readText(page, REQUEST_TIMEOUT_MS);
    } catch (error) {
      if (error instanceof CheckSkipped) throw error;
      // The kit's own reach, not the service's rule: the page may be on a host this machine cannot reach.
      throw new CheckSkipped(
        `the kit could not reach the buyer's page at ${url.origin} (payment_url): ${redactSecrets(String((error as Error).message))}; a check that needs a paid payment cannot run from here`,
      );
    }
    const form = [...html.matchAll(/<form\b[^>]*\baction="([^"]+)"[^>]*>([\s\S]*?)<\/form>/gi)].find((m) =>
      new RegExp(`\\b(?:id|data-testid)="${action}"`).test(m[2] ?? ''),
    );
    if (!form?.[1]) {
      const move = action === 'pay' ? 'succeed' : 'fail';
      if (!this.control)
        throw new NeedsControl(`the buyer's page at payment_url has no ${action} form the kit can post`);
      await this.admin('POST', `/_simulator/payments/${payment.id}/${move}`);
      return;
    }
    this.budget.spend();
    const target = new URL(form[1].replace(/&amp;/g, '&'), page.url || payment.payment_url);
    const res = await this.#settings.fetch(target, {
      method: 'POST',
      redirect: 'manual',
      signal: this.budget.requestSignal(),
    });
    await res.body?.cancel();
    if (res.status >= 400) {
      throw new CheckFailure(`the buyer's ${action} on ${target.pathname} answered ${res.status}`, {
        request: `POST ${target.pathname}`,
        status: res.status,
        requestId: res.headers.get('x-request-id') ?? undefined,
        body: '',
      });
    }
  }

  /** Polls `read` until `done` holds, letting service time pass between reads; fails with `what` at the end. */
  async until<T>(
    what: string,
    read: () => Promise<T>,
    done: (value: T) => boolean,
    { seconds = 10, step = 0.5 }: { seconds?: number | undefined; step?: number | undefined } = {},
  ): Promise<T> {
    let value = await read();
    for (let waited = 0; !done(value) && waited < seconds; waited += step) {
      await this.elapse(step);
      value = await read();
    }
    if (!done(value)) {
      // An answer on the wire is shown as one (status, request id, body); anything else as JSON.
      const observed = (value as Partial<WireAnswer> | undefined)?.observed;
      // The reference's manual clock was moved; anything else was waited for in real time.
      const time = this.control?.clock === 'manual' ? 'service' : 'real';
      if (observed) throw new CheckFailure(`${what} (after ${seconds} s of ${time} time)`, observed);
      throw new CheckFailure(`${what} (after ${seconds} s of ${time} time); last seen: ${show(value)}`);
    }
    return value;
  }

  /**
   * Cancels every payment of the run that is still pending: the kit leaves nothing waiting for a buyer. Bounded
   * by `limitMs` in all (default 30 s): a service that stops answering does not hold the run past its bound.
   */
  cleanUp(limitMs = CLEANUP_TIME_LIMIT_MS): Promise<string[]> {
    return this.budget.cleanUp(limitMs, async (stop) => {
      const cancelled: string[] = [];
      for (const [id, { key, secret }] of this.payments) {
        if (stop.aborted) break;
        const as = { key, signWith: secret ?? null };
        const res = await this.api('payments.get', id, as).catch(() => undefined);
        if ((res?.json as { status?: unknown } | undefined)?.status !== 'pending') continue;
        const done = await this.api('payments.cancel', id, as).catch(() => undefined);
        if (done?.status === 200) cancelled.push(id);
      }
      return cancelled;
    });
  }
}

/** The key (and signing secret) a client of the kit was made with, for the clean-up. */
interface Credentials {
  key: string;
  secret: string | undefined;
}
const credentials = new WeakMap<PspClient, Credentials>();
