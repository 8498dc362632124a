import { createClient } from 'redis';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptRunner } from '../../src/replicas/redis.js';
import { haveRedis, type RedisServer, startRedisServer } from '../support/redis-server.js';

describe.skipIf(!haveRedis())('a real redis-server, reached through both clients', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('runs one script through node-redis and ioredis alike', async () => {
    const nodeRedis = createClient({ url: server.url });
    await nodeRedis.connect();
    const io = new Redis(server.url, { lazyConnect: false });
    try {
      const script = "return redis.call('INCRBY', KEYS[1], ARGV[1])";
      expect(await scriptRunner(nodeRedis)(script, ['n'], [2])).toBe(2);
      expect(await scriptRunner(io)(script, ['n'], [3])).toBe(5);
    } finally {
      await nodeRedis.quit();
      io.disconnect();
    }
  });

  it('refuses an object that is neither client', () => {
    expect(() => scriptRunner({} as never)).toThrow(/node-redis client .* or an ioredis client/);
  });
});
