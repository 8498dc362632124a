import { mkdir, readFile, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signWebhook } from '../../src/webhooks/index.js';
import { haveRedis, type RedisServer, startRedisServer } from '../support/redis-server.js';
import { extractTsBlocks, localise } from './extract.js';
import { type ImportedBlock, importBlock } from './import-block.js';

// The node:http recipe of docs/replicas.md is copied as it is into merchants' servers: it must hand the handler the
// body as a stream, so the handler's own rules hold (the signature header checked before a byte of the body is
// read, at most maxBodyBytes read). A recipe that buffers the whole body first lets an unsigned upload of any size
// or speed hold the receiver's memory and connection.

const root = join(import.meta.dirname, '..', '..');
const secret = 'whs_recipe_test_secret';

describe.skipIf(!haveRedis())('docs/replicas.md, the node:http recipe', () => {
  let redis: RedisServer;
  let server: Server;
  let recipe: ImportedBlock | undefined;
  const sockets: Socket[] = [];
  // The recipe's Redis client reports every failed reconnection through its 'error' listener (console.error)
  // from the outage test until the recipe is shut down: held here for the whole file, released after.
  const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
  const saved = {
    REDIS_URL: process.env.REDIS_URL,
    PORT: process.env.PORT,
    SECRET: process.env.PSP_WEBHOOK_SECRET,
  };

  beforeAll(async () => {
    redis = await startRedisServer();
    Object.assign(process.env, { REDIS_URL: redis.url, PORT: '0', PSP_WEBHOOK_SECRET: secret });
    const doc = await readFile(join(root, 'docs/replicas.md'), 'utf8');
    const block = extractTsBlocks('docs/replicas.md', doc).find((b) => b.code.includes("from 'node:http'"));
    if (!block) throw new Error('the node:http recipe is gone from docs/replicas.md');
    const dir = join(root, 'test-output', 'replicas-recipe');
    await mkdir(dir, { recursive: true });
    const file = join(dir, 'node-http.ts');
    await writeFile(file, `${localise(block.code, root)}\nexport {};\n`);
    recipe = await importBlock(file);
    server = recipe.servers[0]!;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    // The recipe's own SIGTERM wiring: its server closes, then its Redis client, which stops reconnecting; before
    // that, a client whose Redis is gone logged on after the file ended (vitest: "Closing rpc while
    // onUserConsoleLog was pending").
    await recipe?.stop();
    await redis?.stop();
    errors.mockRestore();
    for (const [k, v] of Object.entries({ ...saved, PSP_WEBHOOK_SECRET: saved.SECRET, SECRET: undefined })) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it('answers an unsigned upload that never ends with 400 at once, reading none of it', {
    timeout: 20_000,
  }, async () => {
    const { port } = server.address() as AddressInfo;
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      sockets.push(socket);
      let out = '';
      socket.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8');
        if (out.includes('\r\n\r\n')) resolve(out);
      });
      socket.on('error', reject);
      // A declared 1 GB body of which a few bytes come, then nothing.
      socket.write(
        'POST /webhooks HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n{"id":',
      );
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
  });

  const deliver = (id: string) => {
    const { port } = server.address() as AddressInfo;
    const event = {
      id,
      event: 'payment.succeeded',
      created_at: new Date().toISOString(),
      data: { order_id: 'o-1' },
    };
    const { body, headers } = signWebhook(event, secret);
    return fetch(`http://127.0.0.1:${port}/webhooks`, { method: 'POST', body, headers });
  };

  it('still handles a signed delivery (200)', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      const res = await deliver('evt_recipe_1');
      expect(res.status, await res.clone().text()).toBe(200);
      expect(await res.json()).toEqual({ received: true });
    } finally {
      log.mockRestore();
    }
  });

  it('answers other methods 405 and keeps serving (fetch refuses TRACE: a Request built from it would throw)', async () => {
    const { port } = server.address() as AddressInfo;
    for (const method of ['TRACE', 'GET', 'PUT']) {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        sockets.push(socket);
        let out = '';
        socket.on('data', (chunk: Buffer) => {
          out += chunk.toString('utf8');
        });
        socket.on('error', reject);
        socket.on('close', () => resolve(out));
        socket.end(`${method} /webhooks HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 405 /);
    }
    expect(server.listening).toBe(true);
  });

  it('survives a Redis outage and answers 503 (the node-redis client has an error listener)', async () => {
    errors.mockClear();
    await redis.stop();
    // The client sees the connection drop; without a listener node-redis throws it and the process dies.
    await vi.waitFor(() => expect(errors).toHaveBeenCalled());
    const res = await deliver('evt_recipe_2');
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ error: 'dedupe_unavailable' });
  });
});
