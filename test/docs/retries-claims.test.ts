import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PspClient } from '../../src/index.js';

/**
 * docs/idempotency-and-retries.md says which failures are retried. This holds the client to it with a stub
 * fetch: one retry allowed, no wait between attempts, and a count of the attempts each status gets.
 */
const doc = await readFile(
  join(import.meta.dirname, '..', '..', 'docs', 'idempotency-and-retries.md'),
  'utf8',
);

async function attemptsFor(status: number): Promise<number> {
  let calls = 0;
  const client = new PspClient({
    apiKey: 'sk_test_abc123_secret',
    baseUrl: 'http://psp.test',
    maxRetries: 1,
    maxRetryDelay: 0,
    fetch: async () => {
      calls += 1;
      return Response.json(
        { error: { code: 'x', message: 'm' } },
        { status, headers: { 'retry-after': '0' } },
      );
    },
  });
  await client.payments.get('6f9619ff-8b86-4d11-b42d-00c04fc964ff').catch(() => {});
  return calls;
}

describe('docs/idempotency-and-retries.md', () => {
  it('states the retried and the final statuses', () => {
    expect(doc).toContain('| 408, and every 5xx but 501 | yes');
    expect(doc).toContain('| 501 Not Implemented | no');
    expect(doc).toContain('| 400, 401, 403, 404, 409, 422 | no');
  });

  it.each([408, 429, 500, 502, 503, 504, 505, 599])('retries %i', async (status) => {
    expect(await attemptsFor(status)).toBe(2);
  });

  it.each([400, 401, 403, 404, 409, 422, 501])('does not retry %i', async (status) => {
    expect(await attemptsFor(status)).toBe(1);
  });
});
