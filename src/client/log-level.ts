import { PspAbortError, PspApiError, type PspError } from './errors.js';
import { type Logger, log } from './logger.js';

/**
 * How much the client logs: `debug` one line per attempt, `info` one per retry, `warn` and `error` one per failed
 * call (and the event stream's warnings), `off` nothing.
 *
 * @example
 * new PspClient({ apiKey, baseUrl, logLevel: 'info' }); // or PSP_LOG=debug in the environment
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'off';

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;

/**
 * Is `value` a log level? `undefined` when it is not one (an unknown `PSP_LOG` is ignored, not fatal).
 *
 * @example
 * parseLogLevel(process.env.PSP_LOG); // 'debug' | ... | undefined
 */
export function parseLogLevel(value: unknown): LogLevel | undefined {
  return value === 'off' || LEVELS.includes(value as never) ? (value as LogLevel) : undefined;
}

/**
 * The logger the client writes to: `logger` (default `console`) with only the methods at `level` or above; `undefined` when nothing is to be written, so the client skips building the lines. A pino logger
 * (recognised by its `bindings()` and `levels`) gets its arguments in pino's order, `(meta, msg)`.
 *
 * @example
 * const log = leveledLogger(console, 'info');
 * log?.debug; // undefined: below the level
 */
export function leveledLogger(logger: Logger | undefined, level: LogLevel): Logger | undefined {
  const target = logger ?? (globalThis as { console?: Logger }).console;
  if (!target || level === 'off') return undefined;
  const p = target as { bindings?: unknown; levels?: { values?: unknown } };
  const pino = typeof p.bindings === 'function' && typeof p.levels?.values === 'object';
  const out: Logger = {};
  for (const name of LEVELS.slice(LEVELS.indexOf(level))) {
    const fn = target[name];
    if (typeof fn !== 'function') continue;
    // Lines arrive redacted: `log()` redacts every line before it calls these.
    out[name] = (msg, meta) => {
      if (meta === undefined) fn.call(target, msg);
      else if (pino) fn.call(target, meta as never, msg as never);
      else fn.call(target, msg, meta);
    };
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * The one line of a failed call: `warn` when the service refused the request (a 4xx), `error` when no good answer
 * came (5xx, timeout, no connection, an unreadable answer), `debug` when the caller aborted.
 *
 * @example
 * logFailure(options.logger, err, 'GET /payments/...');
 */
export function logFailure(logger: Logger | undefined, err: PspError, what: string): void {
  const level =
    err instanceof PspAbortError
      ? 'debug'
      : err instanceof PspApiError && err.status < 500
        ? 'warn'
        : 'error';
  if (logger?.[level]) log(logger, level, 'psp-sdk: failed', { call: what, error: err.toJSON() });
}
