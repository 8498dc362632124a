import { type FieldIssue, formatFieldIssues } from '../schemas/issues.js';
import { formsOnly, type Redactor } from '../internal/redact.js';

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
function safeStack(err: Error, redact: Redactor): string {
  const stack = err.stack ?? '';
  const head = `${err.name}: ${err.message}`;
  const frames = stack.startsWith(head) ? stack.slice(head.length) : undefined;
  return frames !== undefined && /^(\n {4}at [^\n]*)*$/.test(frames)
    ? redact.text(head) + frames
    : redact.text(stack || head);
}

/** A redacted copy of an error chain: name, message, stack, a string `code`; nothing else survives. */
function safeCause(cause: unknown, depth: number, redact: Redactor): Error | undefined {
  if (!(cause instanceof Error) || depth === 0) return undefined;
  const copy = new Error(redact.text(cause.message));
  copy.name = cause.name;
  copy.stack = safeStack(cause, redact);
  const code = (cause as { code?: unknown }).code;
  if (typeof code === 'string') Object.assign(copy, { code: redact.text(code) });
  const inner = safeCause(cause.cause, depth - 1, redact);
  if (inner) hide(copy, 'cause', inner);
  return copy;
}

/** Sets the redaction of a PspError's `toJSON()` and `util.inspect`: see {@link redactError}. */
let adopt: (err: PspError, redact: Redactor) => void;

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
    adopt = (err, redact) => {
      err.#redact = redact;
    };
  }

  // Whose secrets this error must not show: every secret's form until the client that throws it adopts it.
  #redact: Redactor = formsOnly;

  constructor(message: string, options?: { cause?: unknown }) {
    super(formsOnly.text(message));
    if (options?.cause !== undefined) {
      // A foreign error (a custom fetch's, say) may quote the request, Authorization header included: keep a
      // redacted copy, out of enumeration, never the original.
      hide(this, 'cause', safeCause(options.cause, 3, formsOnly));
    }
  }

  /** The fields safe to log; `JSON.stringify(err)` uses it. */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = { name: this.name, message: this.message };
    const self = this as unknown as Record<string, unknown>;
    for (const k of SAFE_FIELDS) if (self[k] !== undefined) out[k] = self[k];
    if (self.headers instanceof Headers) out.headers = this.#redact.headers(self.headers);
    const cause = this.cause;
    if (cause instanceof Error) out.cause = { name: cause.name, message: cause.message };
    // Every string once more, whatever field a subclass or a caller added.
    return this.#redact.deep(out) as Record<string, unknown>;
  }

  /** @internal What `util.inspect` shows: the stack and the safe fields. */
  [INSPECT](_depth: number, options: unknown, inspect?: Inspect): string {
    const { name: _n, message: _m, ...rest } = this.toJSON();
    const head = safeStack(this, this.#redact);
    if (Object.keys(rest).length === 0 || !inspect) return head;
    return `${head} ${inspect(rest, options)}`;
  }
}

/**
 * Makes `err` the error of the owner of `redact` (a client, for every error it throws): what the error shows (its
 * message, stack, `code`, `requestId`, headers, `issues` and cause chain) is redacted again, now knowing the
 * owner's secrets without their prefix, and `toJSON()` and `util.inspect` redact with it from then on. An error is
 * made knowing only the forms of secrets (each class's constructor redacts what it is given): the owner's secrets
 * reach it here, so that no registry of secrets outlives its owner. Anything but a {@link PspError} is returned
 * as it is.
 *
 * @example
 * throw redactError(await toPspError(err, state, what), this.#redact);
 */
export function redactError<E>(err: E, redact: Redactor): E {
  if (!(err instanceof PspError)) return err;
  adopt(err, redact);
  // The stack first: its head is the message as the constructor left it, which is what it is cut at.
  err.stack = safeStack(err, redact);
  const self = err as unknown as Record<string, unknown>;
  for (const key of ['message', 'code', 'requestId'])
    if (typeof self[key] === 'string') self[key] = redact.text(self[key] as string);
  if (Array.isArray(self.issues)) self.issues = redact.deep(self.issues);
  if (self.headers instanceof Headers) hideHeaders(err, self.headers, redact);
  if (err.cause instanceof Error) hide(err, 'cause', safeCause(err.cause, 3, redact));
  return err;
}

/**
 * Keeps a redacted copy of `headers` as the error's hidden `headers` (every header, each value redacted).
 *
 * @example
 * hideHeaders(err, response.headers, formsOnly);
 */
export function hideHeaders(err: PspError, headers: Headers, redact: Redactor): Headers {
  const copy = new Headers();
  for (const [name, value] of headers) copy.append(name, redact.text(value));
  hide(err, 'headers', copy);
  return copy;
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
    this.issues = formsOnly.deep(issues) as FieldIssue[];
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
    Object.assign(this, { status, issues: formsOnly.deep(issues), idempotencyKey });
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
