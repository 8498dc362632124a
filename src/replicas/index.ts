/**
 * `psp-sdk/replicas`: what a merchant's service needs when it runs as many replicas or serverless instances:
 * webhook dedupe across them (`memoryDedupe`, `redisDedupe`) and one event-stream holder among them
 * (`memoryLease`, `redisLease`). Nothing here is loaded by `psp-sdk` or `psp-sdk/webhooks` unless imported.
 *
 * @module
 */
export * from './dedupe.js';
export * from './lease.js';
export type { IoRedisLike, NodeRedisLike, RedisClientLike } from './redis.js';
