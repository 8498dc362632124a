import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'psp-names-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('error names in a minified, tree-shaken bundle', () => {
  it('survive class renaming and tree-shaking (as a consumer bundler would do)', async () => {
    const out = await build({
      entryPoints: [join(import.meta.dirname, '../../src/index.ts')],
      bundle: true,
      minify: true,
      treeShaking: true,
      format: 'esm',
      platform: 'neutral',
      mainFields: ['module', 'main'],
      write: false,
      logLevel: 'silent',
    });
    const file = join(dir, 'bundle.mjs');
    writeFileSync(file, out.outputFiles[0]?.text ?? '');
    const sdk = await import(pathToFileURL(file).href);
    const headers = new Headers();
    const cases: Array<[number, string, string]> = [
      [404, 'not_found', 'NotFoundError'],
      [409, 'not_pending', 'NotPendingError'],
      [400, 'invalid_signature', 'SignatureError'],
      [429, 'rate_limited', 'RateLimitError'],
      [503, 'x', 'InternalServerError'],
    ];
    for (const [status, code, name] of cases) {
      const e = sdk.createApiError({ status, body: { error: { code, message: 'm' } }, headers, attempts: 1 });
      expect(e.name).toBe(name);
      expect(e).toBeInstanceOf(sdk[name]);
      expect(String(e.stack).startsWith(`${name}: m`)).toBe(true);
    }
    let thrown: unknown;
    try {
      new sdk.PspClient({ apiKey: 'nope', baseUrl: 'http://x.test' });
    } catch (e) {
      thrown = e;
    }
    expect((thrown as Error).name).toBe('PspValidationError');
  });
});
