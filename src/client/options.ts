import type { FieldIssue } from '../schemas/issues.js';
import { API_KEY_RE, SIGNING_SECRET_RE } from '../schemas/limits.js';
import { PspValidationError } from './errors.js';
import { clientLogger, LEVEL_NAMES, type LogLevel, parseLogLevel } from './log-level.js';
import { type FetchOptions, fetchOptionsIssues, headersIssues, withFetchOptions } from './extras.js';
import type { Logger } from './logger.js';
import type { Middleware } from './middleware.js';
import { Redactor } from '../internal/redact.js';
import type { TelemetryOptions } from './telemetry.js';
import { VERSION } from '../internal/version.js';

/**
 * Options of `new PspClient(options)`.
 *
 * @example
 * const client = new PspClient({ apiKey: 'sk_test_ab12cd_...', baseUrl: 'https://psp.example.com', maxRetries: 3 });
 */
export interface ClientOptions {
  /**
   * The terminal's API key, `sk_test_<6>_<secret>` or `sk_live_<6>_<secret>`.
   * Default: the `PSP_API_KEY` environment variable (where the runtime has `process.env`).
   */
  apiKey?: string | undefined;
  /**
   * Origin (and optional path prefix) of the service; the SDK appends `/api/v1/public/...`. The spec names no
   * public address, so there is no built-in default: the `PSP_BASE_URL` environment variable, else required.
   */
  baseUrl?: string | undefined;
  /**
   * The terminal's signing secret `thm_<secret>`: when set, every request carries `X-PSP-Signature`. `null`: no
   * signature, whatever the environment says (a client of another terminal in a process whose environment holds
   * one). Default: the `PSP_SIGNING_SECRET` environment variable, else no signature.
   *
   * @example new PspClient({ apiKey, signingSecret: null }) // never signs, even with PSP_SIGNING_SECRET set
   */
  signingSecret?: string | null | undefined;
  /** Retries after the first attempt (0 to 10), for requests safe to repeat. Default 2. */
  maxRetries?: number | undefined;
  /**
   * Milliseconds each attempt may wait for the answer's headers, and again for its body (so up to twice this
   * against a server that stalls mid-body; pass a `signal` for a hard deadline). Also the longest wait for a `Retry-After` this client accepts: a 429
   * asking for a longer wait fails at once with `RateLimitError`. Default 60 000.
   */
  timeout?: number | undefined;
  /** Upper bound in milliseconds of any wait between attempts (backoff or `Retry-After`). Default 60 000. */
  maxRetryDelay?: number | undefined;
  /** The fetch to use. Default `globalThis.fetch`. */
  fetch?: typeof fetch | undefined;
  /**
   * Extras handed to `fetch` with every request, the event stream's included: a proxy or mTLS dispatcher
   * (`{ dispatcher: new ProxyAgent(url) }` from undici in Node), a Deno HTTP client
   * (`{ client: Deno.createHttpClient({ proxy: { url } }) }`), `keepalive`... without replacing `fetch`. The keys
   * the SDK sets itself (`method`, `body`, `headers`, `signal`, `redirect`) are refused. A call's own
   * `fetchOptions` go over these. Default: none.
   */
  fetchOptions?: FetchOptions | undefined;
  /**
   * Where log lines go (`console`, pino, winston or any object with `debug`/`info`/`warn`/`error`): one debug line
   * per attempt, one info line per retry and per failed call, a warn line only for what no result or error shows
   * (the event stream's disconnections, a bad `PSP_LOG`). Secrets never reach it. Default `console`.
   */
  logger?: Logger | undefined;
  /**
   * The least severe lines written; the `PSP_LOG` environment variable overrides it (where the runtime has one),
   * so ops can turn logging up without a deploy (a value that is not a level is reported once, at warn). Default
   * `'warn'`: a failed call prints nothing, the error it throws is the report.
   */
  logLevel?: LogLevel | undefined;
  /** Functions around every HTTP attempt, in order (see {@link Middleware}). Default none. */
  middleware?: Middleware[] | undefined;
  /**
   * OpenTelemetry: by default the client records to the providers registered globally with `@opentelemetry/api`
   * (nothing when none is); pass providers to use those instead, or `false` to record nothing.
   */
  telemetry?: TelemetryOptions | false | undefined;
  /**
   * Your integration's name, version and URL, appended to the `User-Agent` (`psp-sdk/1.2.0 shop/4.1 (https://...)`)
   * so the service's logs tell integrations apart. Printable ASCII only. Default none.
   */
  appInfo?: AppInfo | undefined;
  /** Parse responses strictly: any field or enum value the spec does not list fails. Default false (tolerant). */
  strict?: boolean | undefined;
  /** How long `banks.list()` serves the directory from memory, in milliseconds; 0 disables. Default 3 600 000. */
  banksCacheTtl?: number | undefined;
  /**
   * Allow construction in a browser. A secret key in a web page is readable by every buyer: leave this off
   * unless the page is an internal tool. Default false.
   */
  dangerouslyAllowBrowser?: boolean | undefined;
}

/**
 * The `appInfo` client option.
 *
 * @example
 * new PspClient({ apiKey, baseUrl, appInfo: { name: 'shop-backend', version: '4.1.0', url: 'https://shop.example' } });
 */
export interface AppInfo {
  name: string;
  version?: string | undefined;
  url?: string | undefined;
}

/**
 * Per-call options of every method.
 *
 * @example
 * await client.payments.create({ amount: 1000 }, { idempotencyKey: order.id, timeout: 10_000 });
 */
export interface RequestOptions {
  /** For the three create calls: the `Idempotency-Key` (1 to 64 visible ASCII). Default: a fresh UUIDv4. */
  idempotencyKey?: string | undefined;
  /** Aborts the call, including a wait between attempts; the call then throws `PspAbortError`. */
  signal?: AbortSignal | undefined;
  /** Overrides the client's `timeout` for this call. */
  timeout?: number | undefined;
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number | undefined;
  /**
   * Extra headers of this call (a trace id, a tenant tag). The SDK's own cannot be set: `Authorization`,
   * `Idempotency-Key`, `X-PSP-Signature`, `Content-Type`, `Content-Length`, `Accept` and `Host` are refused with
   * `PspValidationError`. Middleware sees them.
   */
  headers?: Record<string, string> | undefined;
  /** Extras for `fetch` for this call, over the client's `fetchOptions` (same rules). */
  fetchOptions?: FetchOptions | undefined;
}

/** The validated, defaulted form of {@link ClientOptions}. */
export interface ResolvedOptions {
  apiKey: string;
  mode: 'test' | 'live';
  baseUrl: string;
  signingSecret: string | undefined;
  maxRetries: number;
  timeout: number;
  maxRetryDelay: number;
  fetch: typeof fetch;
  /** The logger at the level in force: only its enabled methods, every line redacted; undefined when silent. */
  logger: Logger | undefined;
  /** This client's redaction: its key and signing secret, even without their prefix, in any encoding. */
  redact: Redactor;
  strict: boolean;
  banksCacheTtl: number;
  middleware: readonly Middleware[];
  telemetry: TelemetryOptions | false | undefined;
  /** Sent as `User-Agent` (never in a browser, which does not allow it). */
  userAgent: string | undefined;
}

/** setTimeout's ceiling; ky refuses a larger timeout. */
const MAX_TIMER = 2_147_483_647;

/**
 * The variable, `undefined` when unset or empty. Deno without --allow-env throws on any read (NotCapable;
 * PermissionDenied in Deno 1): a client given its options must still construct there, so the refusal is kept in
 * `denied[name]` for the message of an option that needed the variable.
 */
function env(name: string, denied: Record<string, string>): string | undefined {
  try {
    // An empty variable counts as unset.
    return (
      (globalThis as { process?: { env?: Record<string, string | undefined> | undefined } | undefined })
        .process?.env?.[name] || undefined
    );
  } catch (err) {
    denied[name] = err instanceof Error ? `${err.name}: ${err.message}`.slice(0, 200) : 'refused';
    return undefined;
  }
}

/** The issue of a required option given neither directly nor by its variable, saying why the variable is not. */
function required(name: string, option: string, denied: Record<string, string>): string {
  const why = denied[name];
  return why === undefined
    ? `is required (or set ${name})`
    : `${name} could not be read: the environment is not readable (${why}). Deno: run with --allow-env=${name}, or pass ${option}`;
}

function isBrowser(): boolean {
  const g = globalThis as { window?: unknown; document?: unknown };
  return g.window !== undefined && g.document !== undefined;
}

// A header value: printable ASCII (fetch refuses CR, LF and most non-ASCII, which would fail every call).
const UA_PART = /^[\x20-\x7E]{1,200}$/;

/** `psp-sdk/<version>` and the app's `name/version (url)`, as stripe-node builds its User-Agent. */
function agent(issues: FieldIssue[], app: AppInfo | undefined): string {
  const ua = `psp-sdk/${VERSION}`;
  if (app === undefined) return ua;
  const bad = (v: unknown, required: boolean) =>
    v === undefined ? required : typeof v !== 'string' || !UA_PART.test(v);
  if (
    typeof app !== 'object' ||
    app === null ||
    bad(app.name, true) ||
    bad(app.version, false) ||
    bad(app.url, false)
  ) {
    issues.push({
      field: 'appInfo',
      message: 'must be { name, version?, url? }, each 1 to 200 printable ASCII characters',
    });
    return ua;
  }
  return `${ua} ${app.name}${app.version ? `/${app.version}` : ''}${app.url ? ` (${app.url})` : ''}`;
}

/** Checks a count or duration option; pushes an issue (never the value) when it is bad. */
export function checkNumber(
  issues: FieldIssue[],
  field: string,
  value: unknown,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  // Number.isInteger is false for anything but a number.
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) {
    issues.push({ field, message: `must be an integer from ${min} to ${max}` });
    return fallback;
  }
  return value as number;
}

// Over 80 lines: each option checked in turn into one list of issues.
/**
 * Validates and defaults the client options. Errors name the field and never echo a key or secret.
 *
 * @example
 * resolveOptions({ apiKey: 'sk_test_ab12cd_x', baseUrl: 'http://127.0.0.1:4010' }).mode; // 'test'
 */
export function resolveOptions(options: ClientOptions = {}): ResolvedOptions {
  if (isBrowser() && !options.dangerouslyAllowBrowser) {
    throw new PspValidationError(
      [
        {
          field: 'dangerouslyAllowBrowser',
          message:
            'PspClient refuses to run in a browser: the API key would be visible to every visitor. Call the API from your server, or pass dangerouslyAllowBrowser: true for an internal tool',
        },
      ],
      'environment',
    );
  }
  const issues: FieldIssue[] = [];
  const denied: Record<string, string> = {};
  const apiKey = options.apiKey ?? env('PSP_API_KEY', denied);
  const keyMatch = typeof apiKey === 'string' ? API_KEY_RE.exec(apiKey) : null;
  if (!keyMatch) {
    issues.push({
      field: 'apiKey',
      message:
        apiKey === undefined
          ? required('PSP_API_KEY', 'apiKey', denied)
          : 'must start with sk_test_ or sk_live_, then 6 letters or digits, an underscore and the secret (letters, digits, . _ ~ + / = -)',
    });
  }
  const rawBase = options.baseUrl ?? env('PSP_BASE_URL', denied);
  let baseUrl = '';
  if (rawBase === undefined) {
    issues.push({ field: 'baseUrl', message: required('PSP_BASE_URL', 'baseUrl', denied) });
  } else {
    let url: URL | undefined;
    try {
      url = new URL(String(rawBase));
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash) {
      issues.push({ field: 'baseUrl', message: 'must be an absolute http(s) URL without query or fragment' });
    } else {
      baseUrl = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
    }
  }
  const signingSecret =
    options.signingSecret === null ? undefined : (options.signingSecret ?? env('PSP_SIGNING_SECRET', denied));
  if (
    signingSecret !== undefined &&
    (typeof signingSecret !== 'string' || !SIGNING_SECRET_RE.test(signingSecret))
  ) {
    issues.push({
      field: 'signingSecret',
      message: 'must have the form thm_<secret>, exactly as the cabinet shows it',
    });
  }
  const maxRetries = checkNumber(issues, 'maxRetries', options.maxRetries, 2, 0, 10);
  const timeout = checkNumber(issues, 'timeout', options.timeout, 60_000, 1, MAX_TIMER);
  const maxRetryDelay = checkNumber(issues, 'maxRetryDelay', options.maxRetryDelay, 60_000, 0, MAX_TIMER);
  const banksCacheTtl = checkNumber(issues, 'banksCacheTtl', options.banksCacheTtl, 3_600_000, 0, MAX_TIMER);
  const mw = options.middleware ?? [];
  if (!Array.isArray(mw) || !mw.every((m) => typeof m === 'function'))
    issues.push({ field: 'middleware', message: 'must be an array of functions' });
  const logLevel = options.logLevel ?? 'warn';
  if (!parseLogLevel(logLevel)) issues.push({ field: 'logLevel', message: `must be ${LEVEL_NAMES}` });
  const t = options.telemetry;
  if (t !== undefined && t !== false && (typeof t !== 'object' || t === null))
    issues.push({ field: 'telemetry', message: 'must be false or { tracerProvider, meterProvider }' });
  const userAgent = isBrowser() ? undefined : agent(issues, options.appInfo);
  const fetchFn = options.fetch ?? globalThis.fetch;
  if (typeof fetchFn !== 'function') issues.push({ field: 'fetch', message: 'must be a function' });
  issues.push(...fetchOptionsIssues('fetchOptions', options.fetchOptions));
  if (issues.length > 0) throw new PspValidationError(issues, 'client options');
  // From here on, an echo of either (with or without its prefix, in any encoding) is masked in this client's errors
  // and log lines; no other client's redaction knows them.
  const redact = new Redactor([apiKey as string, signingSecret]);
  return {
    apiKey: apiKey as string,
    mode: keyMatch?.[1] as 'test' | 'live',
    baseUrl,
    signingSecret,
    maxRetries,
    timeout,
    maxRetryDelay,
    // Looked up per request, not bound at construction: msw and similar tools patch globalThis.fetch later
    // (in a test's beforeAll) than a module-level client is made. Called on globalThis: a detached fetch throws
    // "Illegal invocation" in some runtimes.
    fetch: withFetchOptions(
      options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      options.fetchOptions,
    ),
    logger: clientLogger(options.logger, logLevel, env('PSP_LOG', denied), redact),
    redact,
    strict: options.strict === true,
    banksCacheTtl,
    middleware: [...mw],
    telemetry: t,
    userAgent,
  };
}

/** The effective per-call settings. */
export interface CallSettings {
  timeout: number;
  maxRetries: number;
  signal: AbortSignal | undefined;
  headers: Record<string, string> | undefined;
  fetchOptions: FetchOptions | undefined;
}

/**
 * Merges per-call options over the client's; a bad value throws {@link PspValidationError} naming it.
 *
 * @example
 * resolveCallOptions({ timeout: 5_000 }, resolved).timeout; // 5000
 */
export function resolveCallOptions(call: RequestOptions | undefined, client: ResolvedOptions): CallSettings {
  if (
    !call ||
    (call.timeout === undefined &&
      call.maxRetries === undefined &&
      call.signal === undefined &&
      call.headers === undefined &&
      call.fetchOptions === undefined)
  ) {
    return {
      timeout: client.timeout,
      maxRetries: client.maxRetries,
      signal: undefined,
      headers: undefined,
      fetchOptions: undefined,
    };
  }
  const issues: FieldIssue[] = [];
  const timeout = checkNumber(issues, 'timeout', call.timeout, client.timeout, 1, MAX_TIMER);
  const maxRetries = checkNumber(issues, 'maxRetries', call.maxRetries, client.maxRetries, 0, 10);
  const signal = call.signal;
  // Duck-typed: a signal from another realm (an iframe, a test environment) fails instanceof but works.
  const s = signal as { aborted?: unknown; addEventListener?: unknown } | undefined;
  if (s !== undefined && (typeof s.aborted !== 'boolean' || typeof s.addEventListener !== 'function')) {
    issues.push({ field: 'signal', message: 'must be an AbortSignal' });
  }
  issues.push(...headersIssues(call.headers), ...fetchOptionsIssues('fetchOptions', call.fetchOptions));
  if (issues.length > 0) throw new PspValidationError(issues, 'request options');
  return { timeout, maxRetries, signal, headers: call.headers, fetchOptions: call.fetchOptions };
}
