import { mkdir, readFile, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signWebhook } from '../../src/webhooks/index.js';
import { haveRedis, type RedisServer, startRedisServer } from '../support/redis-server.js';
import { extractTsBlocks, localise } from './extract.js';
import { type ImportedBlock, importBlock } from './import-block.js';

// The Express recipe of docs/replicas.md uses ioredis, which without an 'error' listener prints
// "[ioredis] Unhandled error event" on every failed reconnection while Redis is down (8 lines in a short outage).
// Run as written (Express itself replaced by test/docs/shims/express.ts, which is not under test), it must answer
// 503 through an outage with nothing logged unhandled, and end on its SIGTERM wiring.

const root = join(import.meta.dirname, '..', '..');
const secret = 'whs_express_recipe_secret';

describe.skipIf(!haveRedis())('docs/replicas.md, the Express (ioredis) recipe', () => {
  let redis: RedisServer;
  let recipe: ImportedBlock | undefined;
  let port: number;
  const logged = {
    error: vi.spyOn(console, 'error').mockImplementation(() => {}),
    warn: vi.spyOn(console, 'warn').mockImplementation(() => {}),
    log: vi.spyOn(console, 'log').mockImplementation(() => {}),
  };
  const lines = (spy: { mock: { calls: unknown[][] } }) => spy.mock.calls.map((c) => c.map(String).join(' '));
  const saved = {
    REDIS_URL: process.env.REDIS_URL,
    PORT: process.env.PORT,
    PSP_WEBHOOK_SECRET: process.env.PSP_WEBHOOK_SECRET,
  };

  beforeAll(async () => {
    redis = await startRedisServer();
    Object.assign(process.env, { REDIS_URL: redis.url, PORT: '0', PSP_WEBHOOK_SECRET: secret });
    const doc = await readFile(join(root, 'docs/replicas.md'), 'utf8');
    const block = extractTsBlocks('docs/replicas.md', doc).find((b) => b.code.includes("from 'ioredis'"));
    if (!block) throw new Error('the Express recipe is gone from docs/replicas.md');
    const shim = pathToFileURL(join(import.meta.dirname, 'shims', 'express.ts')).href;
    const dir = join(root, 'test-output', 'replicas-recipe');
    await mkdir(dir, { recursive: true });
    const file = join(dir, 'express.ts');
    const code = localise(block.code, root).replace("from 'express'", `from '${shim}'`);
    await writeFile(file, `${code}\nexport {};\n`);
    recipe = await importBlock(file);
    port = (recipe.servers[0]!.address() as AddressInfo).port;
  });
  afterAll(async () => {
    // The recipe's SIGTERM wiring: the server closes, then ioredis disconnects and stops reconnecting.
    await recipe?.stop();
    await redis?.stop();
    for (const spy of Object.values(logged)) spy.mockRestore();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  const deliver = (id: string) => {
    const event = {
      id,
      event: 'payment.succeeded',
      created_at: new Date().toISOString(),
      data: { order_id: 'o-1' },
    };
    const { body, headers } = signWebhook(event, secret);
    return fetch(`http://127.0.0.1:${port}/webhooks/psp`, { method: 'POST', body, headers });
  };

  it('handles a signed delivery once (200, then 200 duplicate)', async () => {
    const first = await deliver('evt_express_1');
    expect(first.status, await first.clone().text()).toBe(200);
    expect(await first.json()).toEqual({ received: true });
    expect(await (await deliver('evt_express_1')).json()).toEqual({ received: true, duplicate: true });
    expect(lines(logged.log)).toEqual(['fulfil o-1']);
  });

  it('answers 503 through a Redis outage, with every reconnection error handled', async () => {
    await redis.stop();
    // ioredis retries at once and then every few hundred ms: wait for two failed reconnections, each reported.
    await vi.waitFor(() =>
      expect(lines(logged.error).filter((l) => l.startsWith('redis:')).length).toBeGreaterThan(2),
    );
    const res = await deliver('evt_express_2');
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ error: 'dedupe_unavailable' });
    // What is printed: the recipe's own 'redis:' lines, and onceWebhook's report of the store error (its default
    // onError); nothing unhandled.
    const all = [...lines(logged.error), ...lines(logged.warn)];
    expect(all.join('\n')).not.toContain('Unhandled error event');
    expect(all.filter((l) => !l.startsWith('redis:') && !l.includes('enableOfflineQueue'))).toEqual([]);
  });
});
