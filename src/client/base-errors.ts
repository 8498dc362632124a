import { type FieldIssue, formatFieldIssues } from '../schemas/issues.js';
import { redactDeep, redactSecrets, safeHeaders } from '../internal/redact.js';

/** Node's `util.inspect` hook (a registered symbol: no node: import needed). */
export const INSPECT = Symbol.for('nodejs.util.inspect.custom');

type Inspect = (value: unknown, options?: unknown) => string;

/** The only own fields `toJSON()` and `util.inspect` show (plus allow-listed headers). */
const SAFE_FIELDS = ['status', 'code', 'requestId', 'idempotencyKey', 'attempts', 'retryAfter', 'issues'];

/**
 * Gives a class its name, inside the class body: `err.name` (on the prototype) and `err.constructor.name` (on
 * the class, a configurable own property of every function). Both survive bundlers that rename classes (esbuild
 * turns a class that names itself in its body into `_PspError`; minifiers shorten it) and tree-shaking (which
 * would drop a separate module-level loop).
 *
 * @example
 * class MyError extends PspError { static { named(MyError, 'MyError'); } }
 */
export function named(cls: { prototype: object }, name: string): void {
  hide(cls.prototype, 'name', name);
  Object.defineProperty(cls, 'name', { value: name, configurable: true });
}

/**
 * Sets `key` as a writable, configurable, non-enumerable own property (what class fields and `name` are like,
 * minus enumeration): out of `Object.keys`, spread and a plain `util.inspect`.
 *
 * @example
 * hide(err, 'headers', response.headers);
 */
export function hide(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, configurable: true, writable: true });
}

/**
 * An error's stack, redacted. When it is V8's (the `name: message` line, then only `at` frames), the frames are
 * code locations and are kept as they are: redacting them would be most of the cost of an error.
 */
function safeStack(err: Error): string {
  const stack = err.stack ?? '';
  const head = `${err.name}: ${err.message}`;
  const frames = stack.startsWith(head) ? stack.slice(head.length) : undefined;
  return frames !== undefined && /^(\n {4}at [^\n]*)*$/.test(frames)
    ? redactSecrets(head) + frames
    : redactSecrets(stack || head);
}

/** A redacted copy of an error chain: name, message, stack, a string `code`; nothing else survives. */
function safeCause(cause: unknown, depth: number): Error | undefined {
  if (!(cause instanceof Error) || depth === 0) return undefined;
  const copy = new Error(redactSecrets(cause.message));
  copy.name = cause.name;
  copy.stack = safeStack(cause);
  const code = (cause as { code?: unknown }).code;
  if (typeof code === 'string') Object.assign(copy, { code: redactSecrets(code) });
  const inner = safeCause(cause.cause, depth - 1);
  if (inner) hide(copy, 'cause', inner);
  return copy;
}

/**
 * Root of every error the SDK throws. `message`, `stack`, `JSON.stringify(err)` and `util.inspect(err)` never
 * contain an API key, a signing secret or a webhook secret.
 *
 * @example
 * try { await client.payments.get(id); } catch (err) { if (err instanceof PspError) log(err.toJSON()); }
 */
export class PspError extends Error {
  static {
    named(PspError, 'PspError');
  }

  constructor(message: string, options?: { cause?: unknown }) {
    super(redactSecrets(message));
    if (options?.cause !== undefined) {
      // A foreign error (a custom fetch's, say) may quote the request, Authorization header included: keep a
      // redacted copy, out of enumeration, never the original.
      hide(this, 'cause', safeCause(options.cause, 3));
    }
  }

  /** The fields safe to log; `JSON.stringify(err)` uses it. */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = { name: this.name, message: this.message };
    const self = this as unknown as Record<string, unknown>;
    for (const k of SAFE_FIELDS) if (self[k] !== undefined) out[k] = self[k];
    if (self.headers instanceof Headers) out.headers = safeHeaders(self.headers);
    const cause = this.cause;
    if (cause instanceof Error) out.cause = { name: cause.name, message: cause.message };
    // Every string once more, whatever field a subclass or a caller added.
    return redactDeep(out) as Record<string, unknown>;
  }

  /** @internal What `util.inspect` shows: the stack and the safe fields. */
  [INSPECT](_depth: number, options: unknown, inspect?: Inspect): string {
    const { name: _n, message: _m, ...rest } = this.toJSON();
    const head = safeStack(this);
    if (Object.keys(rest).length === 0 || !inspect) return head;
    return `${head} ${inspect(rest, options)}`;
  }
}

/**
 * Input the SDK refused before sending anything: a bad argument to a method or to the constructor.
 * `issues` names every bad field.
 *
 * @example
 * catch (err) { if (err instanceof PspValidationError) err.issues; // [{ field: 'amount', message: 'must be at least 1' }] }
 */
export class PspValidationError extends PspError {
  static {
    named(PspValidationError, 'PspValidationError');
  }

  declare readonly issues: FieldIssue[];
  constructor(issues: FieldIssue[], what = 'input') {
    super(`Invalid ${what}: ${formatFieldIssues(issues)}`);
    this.issues = redactDeep(issues) as FieldIssue[];
  }
}

/**
 * A response the SDK could not read: not JSON, or (in strict mode, or when a field the SDK needs is missing)
 * not the shape the spec describes. The request may have taken effect.
 *
 * @example
 * catch (err) { if (err instanceof PspResponseError) console.error(err.status, err.issues); }
 */
export class PspResponseError extends PspError {
  static {
    named(PspResponseError, 'PspResponseError');
  }

  /** HTTP status of the answer. */
  declare readonly status: number;
  /** What drifted from the spec, by field (empty when the answer was not JSON). */
  declare readonly issues: FieldIssue[];
  /** The `Idempotency-Key` the request carried, if any. */
  declare idempotencyKey?: string;

  constructor(message: string, status: number, issues: FieldIssue[] = [], idempotencyKey?: string) {
    super(message);
    // In strict mode an issue names an unknown field, which a hostile server may have named after the key.
    Object.assign(this, { status, issues: redactDeep(issues), idempotencyKey });
  }
}

/**
 * The request never got an HTTP answer: DNS, refused connection, reset, TLS. Retried for requests safe to repeat.
 *
 * @example
 * catch (err) { if (err instanceof PspConnectionError && !(err instanceof PspTimeoutError)) retryLater(); }
 */
export class PspConnectionError extends PspError {
  static {
    named(PspConnectionError, 'PspConnectionError');
  }

  /** The `Idempotency-Key` sent, when the request had one: resend with it to stay exactly-once. */
  declare idempotencyKey?: string;
  /** How many attempts were made (1 = no retry). */
  attempts = 1;
}

/**
 * An attempt outlasted its timeout (`timeout` option, default 60 s per attempt).
 *
 * @example
 * await client.payments.get(id, { timeout: 5_000 }).catch((e) => e instanceof PspTimeoutError);
 */
export class PspTimeoutError extends PspConnectionError {
  static {
    named(PspTimeoutError, 'PspTimeoutError');
  }
}

/**
 * The caller's `AbortSignal` fired. Never retried. `reason` is the signal's reason.
 *
 * @example
 * const ac = new AbortController(); ac.abort(); await client.banks.list({ signal: ac.signal }); // throws PspAbortError
 */
export class PspAbortError extends PspError {
  static {
    named(PspAbortError, 'PspAbortError');
  }

  /** The `Idempotency-Key` sent, when the request had one. */
  declare idempotencyKey?: string;
  /** How many attempts were made (1 = no retry). */
  attempts = 1;
}
