import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RunningReference, startReference } from '../../src/reference/index.js';
import { haveRedis, type RedisServer, startRedisServer } from '../support/redis-server.js';
import { type DocBlock, extractTsBlocks, localise } from './extract.js';
import { importBlock } from './import-block.js';

/**
 * Executes the docs' code blocks, so that what they print in comments (`// succeeded`) is what happens. The
 * guides written for this test run every block unless it says ```ts norun; other docs opt in with ```ts run.
 * Blocks that read PSP_API_KEY / PSP_BASE_URL get a reference service started here.
 * Blocks that are vitest tests themselves run in a nested vitest, one file each, file after file in one process
 * (isolate: false, as this suite runs: src/ is loaded once, not once per file, which was 60 % of the run's CPU).
 * Each block closes what it opens, as the guides teach: one that left its msw server intercepting every fetch
 * would fail the blocks after it.
 */
const root = join(import.meta.dirname, '..', '..');
const outDir = join(root, 'test-output', 'doc-run');
const RUN_BY_DEFAULT = [
  'README.md',
  'docs/getting-started.md',
  'docs/authentication.md',
  'docs/idempotency-and-retries.md',
  'docs/errors.md',
  'docs/payouts.md',
  'docs/testing.md',
];
const OPT_IN = [
  'docs/webhooks.md',
  'docs/events.md',
  'docs/reference.md',
  'docs/observability.md',
  'docs/replicas.md',
  'docs/mcp.md',
];

// Blocks that talk to Redis (docs/replicas.md) get a redis-server started here, as REDIS_URL.
const withRedis = haveRedis();

function runnable(block: DocBlock): boolean {
  if (block.flags.includes('norun')) return false;
  if (!withRedis && block.code.includes('REDIS_URL')) return false;
  return RUN_BY_DEFAULT.includes(block.file) || block.flags.includes('run');
}

const name = (b: DocBlock) => `${b.file.replace(/\.md$/, '').replace(/[^\w]+/g, '-')}-L${b.line}`;

const blocks: DocBlock[] = [];
for (const file of [...RUN_BY_DEFAULT, ...OPT_IN]) {
  const text = await readFile(join(root, file), 'utf8').catch(() => undefined);
  if (text !== undefined) blocks.push(...extractTsBlocks(file, text).filter(runnable));
}
const isTestBlock = (b: DocBlock) => /from 'vitest'/.test(b.code);
const plain = blocks.filter((b) => !isTestBlock(b));
const tests = blocks.filter(isTestBlock);

describe('code blocks of README.md and docs/ run', () => {
  let ref: RunningReference;
  let redis: RedisServer | undefined;
  const saved: Record<string, string | undefined> = {};

  beforeAll(async () => {
    await rm(outDir, { recursive: true, force: true });
    await mkdir(join(outDir, 'tests'), { recursive: true });
    ref = await startReference({ port: 0 });
    if (withRedis) redis = await startRedisServer();
    // Not PSP_SIGNING_SECRET: blocks that start their own reference would sign with this one's secret.
    // PORT=0: a block that listens where a real app would (`process.env.PORT ?? 3000`) takes a free port here.
    const env = {
      PSP_API_KEY: ref.api_key,
      PSP_BASE_URL: ref.base_url,
      PSP_SIGNING_SECRET: undefined,
      // For the blocks that play the cabinet of a separately started reference (getting-started).
      PSP_ADMIN_TOKEN: ref.admin_token,
      PSP_SHOP_ID: ref.shop_id,
      PORT: '0',
      REDIS_URL: redis?.url,
    };
    for (const [k, v] of Object.entries(env)) {
      saved[k] = process.env[k];
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
  afterAll(async () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await ref?.close();
    await redis?.stop();
  });

  it('finds the guides’ blocks', () => {
    expect(plain.length).toBeGreaterThan(10);
    expect(tests.length).toBeGreaterThanOrEqual(2);
  });

  it.each(plain.map((b) => [`${b.file}:${b.line}`, b] as const))('%s', async (_where, block) => {
    const file = join(outDir, `${name(block)}.ts`);
    await writeFile(file, `${localise(block.code, root)}\nexport {};\n`);
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    // A block may leave a server listening, or a Redis client connected, as the app it shows would (a webhook
    // receiver): copied as is, it has to keep serving, so the block does not close them; the test shuts it down
    // once it has run, through the block's own SIGTERM wiring, so nothing of it logs or connects after the file.
    try {
      const run = await importBlock(file);
      // The block ran to its end without throwing, as it does for a reader who copies it.
      expect(run.stop).toBeTypeOf('function');
      await run.stop();
    } finally {
      log.mockRestore();
    }
  });

  it('the README quick start prints the output the README shows', async () => {
    const readme = await readFile(join(root, 'README.md'), 'utf8');
    const section = readme.slice(
      readme.indexOf('## Quick start'),
      readme.indexOf('\n## ', readme.indexOf('## Quick start') + 1),
    );
    const [block] = extractTsBlocks('README.md', section);
    const shown = /It prints:\s*```text\n([\s\S]*?)```/.exec(section)?.[1]?.trim().split('\n');
    expect(block?.code).toContain('startReference');
    expect(shown).toBeDefined();
    const file = join(outDir, 'readme-quick-start.ts');
    await writeFile(file, `${localise(block!.code, root)}\nexport {};\n`);
    const printed: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((...args) => void printed.push(args.join(' ')));
    try {
      await (await importBlock(file)).stop();
    } finally {
      log.mockRestore();
    }
    expect(printed).toEqual(shown);
  });

  // CPU-bound: a nested vitest loading src/ and running the blocks (106 s of it beside two busy loops), and a
  // block's own test gets 120 s (the guides' fault-injection block took over 30 s there).
  it('blocks that are vitest tests pass in their own files', { timeout: 300_000 }, async () => {
    await Promise.all(
      tests.map((b) => writeFile(join(outDir, 'tests', `${name(b)}.test.ts`), `${localise(b.code, root)}\n`)),
    );
    const config = join(outDir, 'vitest.config.mjs');
    await writeFile(
      config,
      // psp-mcp's texts as the project's own config defines them (scripts/build-mcp-texts.mjs), for blocks that run it.
      `import { mcpTextsDefine } from ${JSON.stringify(join(root, 'scripts', 'build-mcp-texts.mjs'))};\n` +
        `export default { define: mcpTextsDefine(), test: { root: ${JSON.stringify(root)}, include: ['test-output/doc-run/tests/*.test.ts'], testTimeout: 120000, isolate: false, maxWorkers: 1 } };\n`,
    );
    const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
    const result = await promisify(execFile)(
      process.execPath,
      [vitest, 'run', '--config', config, '--reporter', 'dot'],
      {
        cwd: root,
        // Not the PSP_* variables set above for the plain blocks: the client would pick them up.
        env: {
          ...process.env,
          ...Object.fromEntries(Object.keys(saved).map((k) => [k, saved[k]])),
          NO_COLOR: '1',
          FORCE_COLOR: '0',
        },
        maxBuffer: 16 * 1024 * 1024,
      },
    ).then(
      (r) => ({ ok: true, out: r.stdout + r.stderr }),
      (e: { stdout?: string; stderr?: string }) => ({ ok: false, out: `${e.stdout ?? ''}${e.stderr ?? ''}` }),
    );
    expect(result.ok, result.out).toBe(true);
    expect(result.out).toMatch(new RegExp(`Test Files\\s+${tests.length} passed`));
  });
});
