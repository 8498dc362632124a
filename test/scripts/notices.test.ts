import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs build script, without types
import { NOTICES_FILE, writeNotices } from '../../scripts/notices.mjs';

/** scripts/notices.mjs: dist/ names the licence of every package its source maps say it bundled. */
const work = mkdtempSync(join(tmpdir(), 'psp-sdk-notices-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function project(name: string, packages: Record<string, string | undefined>, sources: string[]): string {
  const root = join(work, name);
  for (const [pkg, licence] of Object.entries(packages)) {
    const dir = join(root, 'node_modules', pkg);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: pkg, version: '1.2.3', license: 'MIT' }));
    if (licence !== undefined) writeFileSync(join(dir, 'LICENSE'), licence);
  }
  mkdirSync(join(root, 'dist', 'reference'), { recursive: true });
  writeFileSync(
    join(root, 'dist', 'chunk-A.js.map'),
    JSON.stringify({ version: 3, sources: sources.slice(0, 2) }),
  );
  writeFileSync(
    join(root, 'dist', 'reference', 'index.cjs.map'),
    JSON.stringify({ version: 3, sources: sources.slice(2) }),
  );
  return join(root, 'dist');
}

describe('notices', () => {
  it('names each bundled package once, scoped and nested ones included, with its licence text; not our sources', () => {
    const dist = project('ok', { ky: 'MIT: ky authors', '@hono/node-server': 'MIT: hono authors' }, [
      '../src/client/client.ts',
      '../node_modules/ky/distribution/index.js',
      '../../node_modules/@hono/node-server/dist/index.mjs',
      '../../node_modules/ky/distribution/core/Ky.js',
    ]);
    expect(writeNotices(dist)).toEqual(['@hono/node-server', 'ky']);
    const text = readFileSync(join(dist, NOTICES_FILE), 'utf8');
    expect(text).toContain('## ky 1.2.3 (MIT)');
    expect(text).toContain('MIT: ky authors');
    expect(text).toContain('MIT: hono authors');
    expect(text).not.toContain('src/client');
  });

  it('refuses a bundled package without a licence file, naming it', () => {
    const dist = project('missing', { ky: 'MIT', 'no-licence': undefined }, [
      '../node_modules/ky/index.js',
      '../node_modules/no-licence/index.js',
    ]);
    expect(() => writeNotices(dist)).toThrow('notices: no licence file in no-licence');
  });
});
