import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const script = new URL('../../scripts/check-dist.mjs', import.meta.url).pathname;
const dirs: string[] = [];

type Files = Record<string, string>;

/** A fake dist/ where each built file gets a source map naming `sources`. */
function fakeDist(files: Files, sources: Record<string, string[]> = {}): string {
  const root = mkdtempSync(join(tmpdir(), 'psp-check-dist-'));
  dirs.push(root);
  writeFileSync(
    join(root, 'package.json'),
    JSON.stringify({
      dependencies: { hono: '*', zod: '*' },
      peerDependencies: { msw: '*', '@modelcontextprotocol/sdk': '*' },
    }),
  );
  const clean: Files = {
    'index.js': "import * as z from 'zod/mini';\nexport const a = z;\n",
    'index.cjs': "module.exports = require('zod/mini');\n",
    'webhooks/index.js': 'export const w = 1;\n',
    'webhooks/index.cjs': 'module.exports = { w: 1 };\n',
    'replicas/index.js': 'export const r = 1;\n',
    'replicas/index.cjs': 'module.exports = { r: 1 };\n',
    'reference/index.js': "import { Hono } from 'hono';\nimport 'node:http';\nexport { Hono };\n",
    'reference/index.cjs': "module.exports = require('hono');\n",
    'reference/msw.js': "export { http } from 'msw';\n",
    'reference/msw.cjs': "module.exports = require('msw');\n",
    'reference/cli.js': "import 'node:http';\nimport 'hono';\n",
    'reference/bin.js': "#!/usr/bin/env node\nimport './cli.js';\n",
    'reference/cli-contract.js': "import 'node:http';\nexport const c = 1;\n",
    'conformance/index.js': "import 'node:http';\nexport const k = 1;\n",
    'conformance/index.cjs': "require('node:http');\nmodule.exports = { k: 1 };\n",
    'mcp/index.js':
      "import { Server } from '@modelcontextprotocol/sdk/server/index.js';\nexport { Server };\n",
    'mcp/index.cjs': "module.exports = require('@modelcontextprotocol/sdk/server/index.js');\n",
    'mcp/cli.js': "import '@modelcontextprotocol/sdk/server/stdio.js';\nimport 'node:process';\n",
    'mcp/bin.js': "#!/usr/bin/env node\nimport './cli.js';\n",
  };
  for (const [file, text] of Object.entries({ ...clean, ...files })) {
    const path = join(root, 'dist', file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    const mapSources = sources[file] ?? ['../src/index.ts'];
    writeFileSync(`${path}.map`, JSON.stringify({ version: 3, sources: mapSources, mappings: '' }));
  }
  return join(root, 'dist');
}

async function check(dist: string): Promise<{ code: number; output: string }> {
  return promisify(execFile)(process.execPath, [script, '--dist', dist]).then(
    (r) => ({ code: 0, output: r.stdout + r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, output: e.stdout + e.stderr }),
  );
}

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

// scripts/check-dist.mjs guards the built package in npm test; these prove it catches what it claims to.
describe('scripts/check-dist.mjs', () => {
  it('passes a build whose client and webhooks entries stay clean', async () => {
    const r = await check(fakeDist({}));
    expect(r.output).toContain('bundle isolation: ok');
    expect(r.code).toBe(0);
  });

  it('catches reference code reaching the client through a chunk shared by ESM splitting', async () => {
    const dist = fakeDist(
      {
        'index.js': "import { x } from './chunk-A.js';\nexport { x };\n",
        'chunk-A.js': 'export const x = 1;\n',
      },
      { 'chunk-A.js': ['../src/reference/domain/payments.ts'] },
    );
    const r = await check(dist);
    expect(r.code).toBe(1);
    expect(r.output).toContain('dist/index.js: contains src/reference/domain/payments.ts');
  });

  it('catches a run-time import of a package that consumers do not install', async () => {
    const r = await check(fakeDist({ 'reference/index.js': "import 'left-pad';\nimport 'http';\n" }));
    expect(r.code).toBe(1);
    expect(r.output).toContain(
      'dist/reference/index.js: imports left-pad, which package.json lists in neither dependencies nor peerDependencies',
    );
    expect(r.output).not.toContain('imports http,');
  });

  it('catches zod bundled into the webhooks entry', async () => {
    const dist = fakeDist(
      { 'webhooks/index.js': 'export const w = 1;\n' },
      { 'webhooks/index.js': ['../src/webhooks/verify.ts', '../../node_modules/zod/v4/mini/schemas.js'] },
    );
    const r = await check(dist);
    expect(r.code).toBe(1);
    expect(r.output).toContain('dist/webhooks/index.js: contains node_modules/zod/v4/mini/schemas.js');
  });

  it('catches hono, zod and node: imports in the webhooks entry, and ESM-only requires in CJS', async () => {
    const r = await check(
      fakeDist({
        'webhooks/index.js': "import 'hono';\nimport 'zod/mini';\nimport 'node:crypto';\n",
        'index.cjs': "module.exports = require('ky');\n",
      }),
    );
    expect(r.code).toBe(1);
    expect(r.output).toContain('dist/webhooks/index.js: imports hono');
    expect(r.output).toContain('dist/webhooks/index.js: imports zod/mini');
    expect(r.output).toContain('dist/webhooks/index.js: imports node:crypto');
    expect(r.output).toContain('dist/index.cjs: requires ESM-only ky');
  });
});
