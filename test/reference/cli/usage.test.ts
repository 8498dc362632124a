import { describe, expect, it } from 'vitest';
import { parseCliArgs, USAGE } from '../../../src/reference/cli/cli-args.js';
import { parseTriggerArgs, TRIGGER_USAGE } from '../../../src/reference/cli/trigger-args.js';
import { optionsHelp, parserOptions } from '../../../src/reference/cli/usage.js';

// Issue 22: the CLIs' help was kept by hand beside their option tables (two copies that drift). Now each option is
// written once, with its help, and both the parser and `--help` are made from that table.

/** The long flags an Options block names. */
const flagsOf = (usage: string) =>
  [...usage.slice(usage.indexOf('Options')).matchAll(/^ {2}(?:-\w, )?--([a-z-]+)/gm)].map((m) => m[1]!);

describe('one table per CLI: parser and help', () => {
  it('lays out an option per entry: the flag in its column, the help beside it, wrapped', () => {
    expect(optionsHelp({ port: { type: 'string', value: '<number>', help: 'port to bind' } })).toBe(
      '  --port <number>       port to bind',
    );
    expect(optionsHelp({ quiet: { type: 'boolean', short: 'q', help: 'no logs' } })).toBe(
      '  -q, --quiet           no logs',
    );
    const long = optionsHelp({
      'a-very-long-option-name': { type: 'boolean', help: 'word '.repeat(40).trim() },
    });
    const lines = long.split('\n');
    expect(lines[0]).toBe('  --a-very-long-option-name');
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines.slice(1)) expect(line).toMatch(/^ {24}word/);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(104);
  });

  it('gives the parser the table without its help words', () => {
    expect(parserOptions({ port: { type: 'string', default: '1', value: '<n>', help: 'x' } })).toEqual({
      port: { type: 'string', default: '1' },
    });
  });

  it('psp-reference --help names exactly the options the parser takes', () => {
    const flags = flagsOf(USAGE);
    expect(flags).toContain('allow-private-webhooks');
    const sample: Record<string, string> = {
      port: '0',
      clock: 'manual',
      'public-url': 'http://x',
      seed: '1',
      // Fixed credentials are checked for their form and strength: strong samples of each.
      'api-key': 'sk_test_fixed1_Q7vK2mXp9LrT4wYb8NcE3hJd6GsA',
      'admin-token': 'adm_x8Rk3Vq0Tz6Lm2Wp9Yc4Hb7Nf5Jd1Gs',
      'webhook-secret': 'whs_Q7vK2mXp9LrT4wYb8NcE3hJd6GsA',
      'webhook-chaos': 'duplicate=0.3,delay=0-30s,seed=42',
    };
    for (const flag of flags) {
      const booleanFlag = !/^ {2}(?:-\w, )?--[a-z-]+ </m.test(
        USAGE.split('\n').find((l) => l.includes(`--${flag}`))!,
      );
      if (flag === 'faults') continue; // reads a file: its parsing has its own tests
      const args = booleanFlag ? [`--${flag}`] : [`--${flag}`, sample[flag] ?? 'x'];
      expect(() => parseCliArgs(args), flag).not.toThrow();
    }
    expect(() => parseCliArgs(['--prot', '1'])).toThrow();
  });

  it('psp-reference trigger --help names exactly the options the parser takes', () => {
    const flags = flagsOf(TRIGGER_USAGE);
    expect(flags).toEqual(['base-url', 'admin-token', 'api-key', 'amount', 'webhook-url', 'json', 'help']);
    expect(parseTriggerArgs(['--help'], {})).toBe('help');
    expect(() => parseTriggerArgs(['payment.succeeded', '--colour'], {})).toThrow(/unknown option/);
  });
});
