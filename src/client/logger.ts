type LogFn = (msg: string, meta?: Record<string, unknown>) => void;

/**
 * Where the SDK writes what it does: one line per request attempt, retry and failure. Every method is optional;
 * `console` fits. Meta never carries a secret: headers pass through an allowlist (never `Authorization`, `X-PSP-Signature` or cookies) and
 * bodies are not logged.
 *
 * @example
 * const client = new PspClient({ apiKey, logger: console });
 * // or structured: { debug: (msg, meta) => pino.debug(meta, msg), warn: (msg, meta) => pino.warn(meta, msg) }
 */
export interface Logger {
  debug?(msg: string, meta?: Record<string, unknown>): void;
  info?(msg: string, meta?: Record<string, unknown>): void;
  warn?(msg: string, meta?: Record<string, unknown>): void;
  error?(msg: string, meta?: Record<string, unknown>): void;
}

/**
 * Calls `logger[level]` if the logger has it: the one way the SDK writes a log line. `logger` is the client's
 * (`ResolvedOptions.logger`, made by `clientLogger`), which redacts the message and every string of `meta` with
 * the client's own redaction. A logger that throws never breaks a request.
 *
 * @example
 * log(options.logger, 'debug', 'request', { method: 'GET', url });
 */
export function log(
  logger: Logger | undefined,
  level: keyof Logger,
  msg: string,
  meta?: Record<string, unknown>,
): void {
  const fn = logger?.[level] as LogFn | undefined;
  if (!fn) return;
  try {
    fn.call(logger, msg, meta);
  } catch {
    // A broken logger must not turn a successful payment into a failure.
  }
}
