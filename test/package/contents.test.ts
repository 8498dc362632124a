import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';

const files = inject('packedFiles');
const consumer = inject('consumerDir');
const installed = join(consumer, 'node_modules', 'psp-sdk');

const entries = ['index', 'webhooks/index', 'reference/index', 'reference/msw'];

describe('the tarball npm pack makes', () => {
  it('holds each entry as ESM and CJS with types for each, the bin, the readme and the licence', () => {
    const expected = [
      'package.json',
      'README.md',
      'LICENSE',
      'dist/reference/bin.js',
      'dist/reference/cli.js',
    ];
    for (const e of entries)
      expected.push(`dist/${e}.js`, `dist/${e}.cjs`, `dist/${e}.d.ts`, `dist/${e}.d.cts`);
    expect(files).toEqual(expect.arrayContaining(expected));
  });

  it('ships only the build and the package documents: no sources, tests, configs or lockfiles', () => {
    const stray = files.filter(
      (f) => !f.startsWith('dist/') && !['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md'].includes(f),
    );
    expect(stray).toEqual([]);
  });

  it('every exports target and the bin exist in the installed package', () => {
    const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
      exports: Record<string, string | Record<string, Record<string, string>>>;
      bin: Record<string, string>;
    };
    const targets: string[] = Object.values(pkg.bin);
    for (const value of Object.values(pkg.exports)) {
      if (typeof value === 'string') targets.push(value);
      else for (const cond of Object.values(value)) targets.push(...Object.values(cond));
    }
    for (const t of targets) expect(files, t).toContain(t.replace(/^\.\//, ''));
  });

  it('the bin starts with a node shebang', () => {
    const bin = readFileSync(join(installed, 'dist', 'reference', 'bin.js'), 'utf8');
    expect(bin.startsWith('#!/usr/bin/env node\n')).toBe(true);
  });
});
