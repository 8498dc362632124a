import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'psp-names-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const root = join(import.meta.dirname, '../..');

/** The error a bundle's client throws for one HTTP answer (the public way to meet an API error). */
function apiError(sdk: Record<string, unknown>, status: number, body: unknown): Promise<Error> {
  const Client = sdk.PspClient as new (o: object) => { banks: { list(): Promise<unknown> } };
  const fetch = async () =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  const client = new Client({
    apiKey: 'sk_test_abc123_secret',
    baseUrl: 'http://x.test',
    maxRetries: 0,
    fetch,
  });
  return client.banks.list().then(
    () => Promise.reject(new Error('no error')),
    (e: Error) => e,
  );
}

/** Every exported error class must be called by its own name, on the class and on its instances. */
async function expectNames(sdk: Record<string, unknown>) {
  const classes = Object.entries(sdk).filter(([k, v]) => /Error$/.test(k) && typeof v === 'function');
  expect(classes.length).toBeGreaterThanOrEqual(22);
  for (const [exported, cls] of classes) {
    const C = cls as { name: string; prototype: { name: string } };
    expect(C.name, `${exported}.name`).toBe(exported);
    expect(C.prototype.name, `${exported}.prototype.name`).toBe(exported);
  }
  const err = await apiError(sdk, 401, {});
  expect(err.constructor.name).toBe('AuthenticationError');
  expect(err.name).toBe('AuthenticationError');
}

/** Bundles src/index.ts as tsup does (esbuild, es2022), optionally minified, and imports the result. */
async function bundle(options: { minify: boolean; format: 'esm' | 'cjs' }) {
  const out = await build({
    entryPoints: [join(root, 'src/index.ts')],
    bundle: true,
    minify: options.minify,
    treeShaking: true,
    format: options.format,
    target: 'es2022',
    platform: options.format === 'cjs' ? 'node' : 'neutral',
    mainFields: ['module', 'main'],
    write: false,
    logLevel: 'silent',
  });
  const file = join(dir, `bundle-${options.minify}.${options.format === 'cjs' ? 'cjs' : 'mjs'}`);
  writeFileSync(file, out.outputFiles[0]?.text ?? '');
  return options.format === 'cjs' ? createRequire(import.meta.url)(file) : import(pathToFileURL(file).href);
}

describe('error class names survive bundling (issue 16: `_PspValidationError` in constructor.name)', () => {
  it.each([
    { minify: false, format: 'esm' as const },
    { minify: false, format: 'cjs' as const },
    { minify: true, format: 'esm' as const },
  ])("an esbuild bundle like tsup's: %j", async (options) => {
    await expectNames(await bundle(options));
  });

  it.runIf(existsSync(join(root, 'dist/index.js')))(
    'the built dist/index.js and dist/index.cjs',
    async () => {
      await expectNames(await import(pathToFileURL(join(root, 'dist/index.js')).href));
      await expectNames(createRequire(import.meta.url)(join(root, 'dist/index.cjs')));
    },
  );
});

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
    const cases: Array<[number, string, string]> = [
      [404, 'not_found', 'NotFoundError'],
      [409, 'not_pending', 'NotPendingError'],
      [400, 'invalid_signature', 'SignatureError'],
      [429, 'rate_limited', 'RateLimitError'],
      [503, 'x', 'InternalServerError'],
    ];
    for (const [status, code, name] of cases) {
      const e = await apiError(sdk, status, { error: { code, message: 'm' } });
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
