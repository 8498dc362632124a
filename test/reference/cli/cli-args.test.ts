import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import {
  banner,
  chaosFlag,
  parseCliArgs,
  STARTUP_KEYS,
  startupJson,
  UsageError,
} from '../../../src/reference/cli/cli-args.js';
import { VERSION } from '../../../src/internal/version.js';
import type { RunningReference } from '../../../src/reference/index.js';

describe('psp-reference flags', () => {
  it('defaults to 127.0.0.1:4010, real clock, banner output', () => {
    expect(parseCliArgs([])).toEqual({
      host: '127.0.0.1',
      port: 4010,
      clock: 'real',
      publicUrl: undefined,
      trustProxy: false,
      json: false,
      quiet: false,
      help: false,
      version: false,
    });
  });

  it('reads every flag', () => {
    expect(
      parseCliArgs([
        '--host',
        '0.0.0.0',
        '--port=0',
        '--clock',
        'manual',
        '--json',
        '--public-url',
        'https://ref.example:8443/ignored/path',
        '--trust-proxy',
        '--quiet',
        '--public-host',
        'PSP,pay.internal.test.',
      ]),
    ).toEqual({
      host: '0.0.0.0',
      port: 0,
      clock: 'manual',
      publicUrl: 'https://ref.example:8443',
      publicHost: ['psp', 'pay.internal.test'],
      trustProxy: true,
      json: true,
      quiet: true,
      help: false,
      version: false,
    });
    expect(parseCliArgs(['-h']).help).toBe(true);
    expect(parseCliArgs(['-v']).version).toBe(true);
    expect(parseCliArgs(['--version']).version).toBe(true);
    expect(parseCliArgs(['-q']).quiet).toBe(true);
    expect(parseCliArgs(['--port', '65535']).port).toBe(65535);
  });

  it("VERSION is package.json's version", () => {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(VERSION).toBe(pkg.version);
  });

  it.each([
    [['--prot', '1'], /Unknown option '--prot'/],
    [['--port'], /--port/],
    [['--port', 'abc'], /--port must be an integer from 0 to 65535, got 'abc'/],
    [['--port', '65536'], /got '65536'/],
    [['--port', '1.5'], /got '1.5'/],
    [['--port', '-1'], /--port/],
    [['--clock', 'fast'], /--clock must be 'real' or 'manual', got 'fast'/],
    [['--host', ''], /--host must not be empty/],
    [['--public-url', 'ftp://x'], /--public-url must be an http\(s\) URL/],
    [['--public-url', 'nope'], /--public-url must be an http\(s\) URL/],
    [['--public-host', 'http://psp'], /--public-host must be host names separated by commas/],
    [['--public-host', 'psp:4010'], /--public-host must be host names/],
    [['--public-host', 'a,,b'], /--public-host must be host names/],
    [['--json=yes'], /--json/],
    [['serve'], /serve/],
  ])('refuses %j with a UsageError', (argv, message) => {
    expect(() => parseCliArgs(argv)).toThrow(UsageError);
    expect(() => parseCliArgs(argv)).toThrow(message);
  });

  // A key pasted where a flag's value goes (or shifted into a positional by a missing flag) ends up on stderr.
  const KEY = 'sk_test_ab12cd_CliPastedKeySecret0001';
  const THM = 'thm_CliPastedSigningSecret0002';
  const ADM = 'adm_CliPastedAdminToken0003';
  it.each([
    [['--port', KEY]],
    [['--seed', KEY]],
    [['--clock', THM]],
    [['--public-url', ADM]],
    [['--public-host', `${KEY}/`]],
    [['--json', KEY]],
    [[`--${KEY}`]],
    [['--port', encodeURIComponent(KEY).replaceAll('_', '%5F')]],
  ])('refuses %j without echoing the secret', (argv) => {
    let err: unknown;
    try {
      parseCliArgs(argv);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    const text = `${(err as Error).message}\n${(err as Error).stack}`;
    for (const part of [KEY.slice(15), THM.slice(4), ADM.slice(4)])
      expect(text).not.toContain(part.slice(0, 12));
  });
});

const facts = {
  base_url: 'http://127.0.0.1:4010',
  pay_url: 'http://127.0.0.1:4010/pay',
  admin_token: 'adm_token',
  merchant_id: 'm',
  shop_id: 's',
  terminal_id: 't',
  api_key: 'sk_test_abc123_secret',
  signing_secret: 'thm_secret',
} as const;
const running = { ...facts, close: async () => {} } as unknown as RunningReference; // only the facts and close() are read

describe('psp-reference output', () => {
  it('prints exactly the contract keys, in its order, as one line', () => {
    const line = startupJson(running);
    expect(line).not.toContain('\n');
    // `facts` is written in the contract's order: the line has its keys, no other, in that order.
    expect(Object.keys(JSON.parse(line))).toEqual(Object.keys(facts));
    expect(STARTUP_KEYS).toEqual(Object.keys(facts));
    expect(JSON.parse(line)).toEqual(facts);
  });

  it('the banner names what it is, the URLs, the key, the admin token and how to stop', () => {
    const text = banner(running, 'manual');
    expect(text).toContain('reference of the Payment Service Public API');
    expect(text).toContain('http://127.0.0.1:4010');
    expect(text).toContain('http://127.0.0.1:4010/pay/{payment_id}');
    expect(text).toContain('sk_test_abc123_secret');
    expect(text).toContain('adm_token');
    expect(text).toContain('thm_secret');
    expect(text).toContain('manual');
    expect(text).toContain('Ctrl+C');
  });
});

describe('--webhook-chaos', () => {
  it("reads each part into PUT /_simulator/webhook-chaos's JSON", () => {
    expect(
      parseCliArgs(['--webhook-chaos', 'duplicate=0.3,reorder=0.2,delay=0-30s,seed=42'], {}),
    ).toMatchObject({
      webhookChaos: { duplicate: 0.3, reorder: 0.2, delay: { min_seconds: 0, max_seconds: 30 }, seed: 42 },
    });
    expect(chaosFlag('delay=500-1500ms')).toEqual({ delay: { min_seconds: 0.5, max_seconds: 1.5 } });
  });

  it.each([
    ['duplicate=2', 'duplicate'],
    ['reorder=x', 'reorder'],
    ['delay=30-0s', 'delay'],
    ['delay=soon', 'delay'],
    ['speed=1', 'takes duplicate, reorder, delay and seed'],
  ])('refuses %s naming the part', (spec, part) => {
    expect(() => parseCliArgs(['--webhook-chaos', spec], {})).toThrow(UsageError);
    expect(() => parseCliArgs(['--webhook-chaos', spec], {})).toThrow(part);
  });
});
