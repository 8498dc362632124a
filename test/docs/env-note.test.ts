import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PspClient, PspValidationError } from '../../src/index.js';
import { extractTsBlocks } from './extract.js';

/**
 * Most doc examples build `new PspClient()` from the environment. Each page with such a block links, before that
 * block, to the one note that says so (getting-started's "The examples' environment"), and the note's claims about
 * the client hold.
 */
const root = join(import.meta.dirname, '..', '..');
const NOTE = 'getting-started.md#the-examples-environment';

/** The argument text of each `new PspClient(...)` in a block (parentheses balanced). */
function constructorArgs(code: string): string[] {
  const found: string[] = [];
  for (let i = code.indexOf('new PspClient('); i >= 0; i = code.indexOf('new PspClient(', i + 1)) {
    let depth = 0;
    let j = i + 'new PspClient'.length;
    for (; j < code.length; j++) {
      if (code[j] === '(') depth++;
      else if (code[j] === ')' && --depth === 0) break;
    }
    found.push(code.slice(i, j + 1));
  }
  return found;
}

/** A block whose client takes its key or base URL from the environment. */
function reliesOnEnv(code: string): boolean {
  return (
    /process\.env\.PSP_(API_KEY|BASE_URL)/.test(code) ||
    constructorArgs(code).some((args) => !/\bbaseUrl\b/.test(args) || !/\bapiKey\b/.test(args))
  );
}

async function pages(): Promise<string[]> {
  const docs = (await readdir(join(root, 'docs'))).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
  return ['README.md', ...docs.sort()];
}

describe('the examples’ environment note', () => {
  it('tells the blocks that rely on it apart', () => {
    expect(reliesOnEnv("new PspClient({ apiKey: 'sk_test_x', baseUrl: 'https://psp.test' })")).toBe(false);
    expect(reliesOnEnv('new PspClient({ apiKey: ref.api_key, baseUrl: ref.base_url })')).toBe(false);
    expect(reliesOnEnv('new PspClient()')).toBe(true);
    expect(reliesOnEnv('new PspClient({ apiKey: key, middleware: [f(x)] })')).toBe(true);
    expect(reliesOnEnv('const base = process.env.PSP_BASE_URL;')).toBe(true);
  });

  it('is linked from every page before its first block that relies on the environment', async () => {
    const missing: string[] = [];
    let pagesWithBlocks = 0;
    for (const page of await pages()) {
      const text = await readFile(join(root, page), 'utf8');
      const first = extractTsBlocks(page, text).find((b) => reliesOnEnv(b.code));
      if (!first) continue;
      pagesWithBlocks++;
      const before = text
        .split('\n')
        .slice(0, first.line - 1)
        .join('\n');
      const ok =
        page === 'docs/getting-started.md'
          ? before.includes("### The examples' environment")
          : before.includes(NOTE);
      if (!ok) missing.push(`${page}:${first.line}`);
    }
    expect(pagesWithBlocks).toBeGreaterThan(5);
    expect(missing, 'blocks that rely on PSP_API_KEY/PSP_BASE_URL before any link to the note').toEqual([]);
  });

  describe('what the note says is true', () => {
    const saved = { key: process.env.PSP_API_KEY, base: process.env.PSP_BASE_URL };
    afterEach(() => {
      for (const [name, value] of [
        ['PSP_API_KEY', saved.key],
        ['PSP_BASE_URL', saved.base],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    });

    it('with neither option nor variable, both are required: there is no default base URL', () => {
      delete process.env.PSP_API_KEY;
      process.env.PSP_BASE_URL = ''; // an empty variable counts as unset
      let error: unknown;
      try {
        new PspClient();
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(PspValidationError);
      const issues = (error as PspValidationError).issues;
      expect(issues.find((i) => i.field === 'baseUrl')?.message).toBe('is required (or set PSP_BASE_URL)');
      expect(issues.find((i) => i.field === 'apiKey')?.message).toMatch(/PSP_API_KEY/);
    });

    it('reads PSP_API_KEY and PSP_BASE_URL for the options left out', async () => {
      process.env.PSP_API_KEY = 'sk_test_ab12cd_from-the-environment';
      process.env.PSP_BASE_URL = 'https://psp.example.test/prefix';
      const seen: Array<{ url: string; auth: string | null }> = [];
      const client = new PspClient({
        telemetry: false,
        fetch: async (input, init) => {
          const request = new Request(input, init);
          seen.push({ url: request.url, auth: request.headers.get('authorization') });
          return Response.json({ items: [] });
        },
      });
      await client.banks.list();
      expect(seen).toEqual([
        {
          url: 'https://psp.example.test/prefix/api/v1/public/banks/sbp',
          auth: 'Bearer sk_test_ab12cd_from-the-environment',
        },
      ]);
    });
  });
});
