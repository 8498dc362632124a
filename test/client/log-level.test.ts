import { describe, expect, it, vi } from 'vitest';
import { leveledLogger, parseLogLevel } from '../../src/client/log-level.js';
import { log } from '../../src/client/logger.js';
import { formsOnly, Redactor } from '../../src/internal/redact.js';

const KEY = 'sk_test_ab12cd_S3cretPartOfTheKey0123456789';

function recorder() {
  const lines: [string, ...unknown[]][] = [];
  const at =
    (level: string) =>
    (...args: unknown[]) =>
      lines.push([level, ...args]);
  return { lines, logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } };
}

describe('log levels', () => {
  it('keeps the methods at the level and above only', () => {
    const { logger } = recorder();
    expect(Object.keys(leveledLogger(logger, 'debug', formsOnly) ?? {})).toEqual([
      'debug',
      'info',
      'warn',
      'error',
    ]);
    expect(Object.keys(leveledLogger(logger, 'warn', formsOnly) ?? {})).toEqual(['warn', 'error']);
    expect(Object.keys(leveledLogger(logger, 'error', formsOnly) ?? {})).toEqual(['error']);
    expect(leveledLogger(logger, 'off', formsOnly)).toBeUndefined();
    // A logger without the methods of the level: nothing to write, so nothing is built.
    expect(leveledLogger({ debug: () => {} }, 'info', formsOnly)).toBeUndefined();
  });

  it('defaults to console', () => {
    const spy = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      leveledLogger(undefined, 'warn', formsOnly)?.warn?.('psp-sdk: hello', { a: 1 });
      expect(spy).toHaveBeenCalledWith('psp-sdk: hello', { a: 1 });
    } finally {
      spy.mockRestore();
    }
  });

  it("with log(), the one way the client writes a line: every string of the message and the meta redacted with the client's redaction", () => {
    const { lines, logger } = recorder();
    log(leveledLogger(logger, 'debug', new Redactor([KEY])), 'debug', `bad ${KEY}`, {
      url: `http://x/?k=${KEY}`,
      nested: { list: [`Bearer ${KEY}`, 3, KEY.slice(15)] },
      n: 1,
    });
    expect(lines).toHaveLength(1);
    expect(JSON.stringify(lines)).not.toContain('S3cret');
  });

  it('calls a pino logger as pino expects, (meta, msg), and a winston or console one as (msg, meta)', () => {
    const pinoCalls: unknown[][] = [];
    const pino = {
      levels: { values: { debug: 20, info: 30 } },
      bindings: () => ({}),
      info(...args: unknown[]) {
        pinoCalls.push(args);
      },
    };
    const log = leveledLogger(pino, 'info', formsOnly);
    log?.info?.('psp-sdk: retrying', { attempt: 2 });
    log?.info?.('psp-sdk: no meta');
    expect(pinoCalls).toEqual([[{ attempt: 2 }, 'psp-sdk: retrying'], ['psp-sdk: no meta']]);
    const { lines, logger } = recorder();
    leveledLogger(logger, 'info', formsOnly)?.info?.('psp-sdk: retrying', { attempt: 2 });
    expect(lines).toEqual([['info', 'psp-sdk: retrying', { attempt: 2 }]]);
  });

  it('reads a level, and ignores anything else', () => {
    for (const l of ['debug', 'info', 'warn', 'error', 'off']) expect(parseLogLevel(l)).toBe(l);
    for (const l of ['DEBUG', 'verbose', '', undefined, 3]) expect(parseLogLevel(l)).toBeUndefined();
  });
});
