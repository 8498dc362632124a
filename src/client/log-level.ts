import type { Redactor } from '../internal/redact.js';
import { PspAbortError, type PspError } from './errors.js';
import { type Logger, log } from './logger.js';

/**
 * How much the client logs: `debug` one line per attempt (and per aborted call), `info` one per retry and one per
 * failed call, `warn` only what the caller cannot see in a result or an error (the event stream's disconnections,
 * a `PSP_LOG` that is not a level), `off` nothing. A failed call is reported by the error the caller gets, so the
 * default, `warn`, prints nothing for it.
 *
 * @example
 * new PspClient({ apiKey, baseUrl, logLevel: 'info' }); // or PSP_LOG=debug in the environment
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'off';

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;
/** The levels, as an error message or a log line names them. */
export const LEVEL_NAMES = 'debug, info, warn, error or off';

/**
 * Is `value` a log level? `undefined` when it is not one (an unknown `PSP_LOG` is reported, not fatal).
 *
 * @example
 * parseLogLevel(process.env.PSP_LOG); // 'debug' | ... | undefined
 */
export function parseLogLevel(value: unknown): LogLevel | undefined {
  return value === 'off' || LEVELS.includes(value as never) ? (value as LogLevel) : undefined;
}

/**
 * The logger the client writes to: `logger` (default `console`) with only the methods at `level` or above, each
 * line's message and every string of its meta redacted by `redact` (the client's own redaction, which knows its
 * key and signing secret); `undefined` when nothing is to be written, so the client skips building the lines. A
 * pino logger (recognised by its `bindings()` and `levels`) gets its arguments in pino's order, `(meta, msg)`.
 *
 * @example
 * const log = leveledLogger(console, 'info', new Redactor([apiKey]));
 * log?.debug; // undefined: below the level
 */
export function leveledLogger(
  logger: Logger | undefined,
  level: LogLevel,
  redact: Redactor,
): Logger | undefined {
  const target = logger ?? (globalThis as { console?: Logger | undefined }).console;
  if (!target || level === 'off') return undefined;
  const p = target as { bindings?: unknown; levels?: { values?: unknown } | undefined };
  const pino = typeof p.bindings === 'function' && typeof p.levels?.values === 'object';
  const out: Logger = {};
  for (const name of LEVELS.slice(LEVELS.indexOf(level))) {
    const fn = target[name];
    if (typeof fn !== 'function') continue;
    out[name] = (msg, meta) => {
      const line = redact.text(msg);
      if (meta === undefined) return void fn.call(target, line);
      const safe = redact.deep(meta) as Record<string, unknown>;
      if (pino) fn.call(target, safe as never, line as never);
      else fn.call(target, line, safe);
    };
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * The one line of a failed call: `info`, since the caller has the error in hand (an expected 404 must not fill a
 * test's output), and `debug` when the caller aborted it.
 *
 * @example
 * logFailure(options.logger, err, 'payments.get');
 */
export function logFailure(logger: Logger | undefined, err: PspError, what: string): void {
  const level = err instanceof PspAbortError ? 'debug' : 'info';
  if (logger?.[level]) log(logger, level, 'psp-sdk: failed', { call: what, error: err.toJSON() });
}

/** The last bad `PSP_LOG` reported: each value is reported once per process, not once per client. */
let reported: string | undefined;

/**
 * The client's logger at the level in force: `PSP_LOG` (case aside) when it is a level, else `level`, redacting
 * with `redact` (see {@link leveledLogger}). A `PSP_LOG` that is not a level is reported once, at `warn` (an ops
 * typo would otherwise pass unseen), where the level in force lets a warning through.
 *
 * @example
 * const logger = clientLogger(console, 'warn', process.env.PSP_LOG, redactor);
 */
export function clientLogger(
  logger: Logger | undefined,
  level: LogLevel,
  fromEnv: string | undefined,
  redact: Redactor,
): Logger | undefined {
  const envLevel = parseLogLevel(fromEnv?.toLowerCase());
  const out = leveledLogger(logger, envLevel ?? level, redact);
  if (fromEnv !== undefined && !envLevel && fromEnv !== reported && out?.warn) {
    reported = fromEnv;
    log(
      out,
      'warn',
      `psp-sdk: PSP_LOG=${JSON.stringify(fromEnv.slice(0, 40))} is not a log level (${LEVEL_NAMES}); using ${level}`,
    );
  }
  return out;
}
