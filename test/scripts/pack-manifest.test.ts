import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without declarations
import { PACKAGE_JSON, PREPARE, restorePrepare, stripPrepare } from '../../scripts/pack-manifest.mjs';

const work = mkdtempSync(join(tmpdir(), 'psp-sdk-pack-manifest-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the tarball package.json without prepare (prepack/postpack)', () => {
  it("puts back exactly this repository's prepare script", () => {
    expect(JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')).scripts.prepare).toBe(PREPARE);
  });

  it('strips prepare and restores the file byte for byte, keeping its modification time; twice is harmless', () => {
    const file = join(work, 'package.json');
    copyFileSync(PACKAGE_JSON, file);
    utimesSync(file, new Date(1_000_000_000), new Date(1_000_000_000));
    const original = readFileSync(file, 'utf8');
    stripPrepare(file);
    stripPrepare(file); // a second pack beside the first
    const stripped = JSON.parse(readFileSync(file, 'utf8'));
    expect(stripped.scripts.prepare).toBeUndefined();
    expect(stripped.scripts.prepack).toBeDefined();
    expect(statSync(file).mtimeMs).toBe(1_000_000_000);
    restorePrepare(file);
    restorePrepare(file);
    expect(readFileSync(file, 'utf8')).toBe(original);
    expect(statSync(file).mtimeMs).toBe(1_000_000_000);
  });
});
