// scripts/build-mcp-texts.mjs: psp-mcp's resources are the guides as they are when the bundler runs, put in by its
// `define`, and the committed copy of the spec. Not a freshness check (nothing is copied to go stale): that the
// texts are the ones served, and that the bundlers are given them.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mcpTexts, mcpTextsDefine, SPEC_FILE, TEXTS_GLOBAL } from '../../scripts/build-mcp-texts.mjs';
import { texts } from '../../src/mcp/texts.js';

const root = join(import.meta.dirname, '..', '..');

describe('scripts/build-mcp-texts.mjs', () => {
  it("reads every user guide of docs/ and the spec copy; contributors' pages stay out", () => {
    const now = mcpTexts();
    const guides = readdirSync(join(root, 'docs'))
      .filter((name) => name.endsWith('.md') && name !== 'architecture.md' && name !== 'benchmarks.md')
      .map((name) => name.slice(0, -3))
      .sort();
    expect(Object.keys(now.docs)).toEqual(guides);
    expect(now.docs.mcp).toBe(readFileSync(join(root, 'docs', 'mcp.md'), 'utf8'));
    expect(now.spec).toBe(readFileSync(SPEC_FILE, 'utf8'));
    expect(now.spec).toMatch(/^# Payment Service Public API/);
  });

  it('gives the bundlers one define, which vitest applied to src/mcp/texts.ts', () => {
    const define = mcpTextsDefine();
    expect(Object.keys(define)).toEqual([TEXTS_GLOBAL]);
    expect(JSON.parse(JSON.parse(define[TEXTS_GLOBAL] as string))).toEqual(mcpTexts());
    expect(texts).toEqual(mcpTexts());
  });

  it('refuses to run without --sync-spec (exit 2), the one thing it writes', () => {
    const r = spawnSync(process.execPath, [join(root, 'scripts', 'build-mcp-texts.mjs')], {
      encoding: 'utf8',
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/usage/);
  });
});
