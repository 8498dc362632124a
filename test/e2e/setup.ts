import { afterAll, beforeAll } from 'vitest';
import type { ClientOptions } from '../../src/client/options.js';
import { PspClient } from '../../src/index.js';
import { type RunningReference, startReference } from '../../src/reference/index.js';

/** A reference on 127.0.0.1, a free port and a manual clock: nothing in it moves unless a test says so. */
export function startRef(): Promise<RunningReference> {
  return startReference({ host: '127.0.0.1', port: 0, clock: 'manual' });
}

/** One {@link startRef} for the tests of a file (or a describe): started before the first, closed after the last. */
export function referenceForFile(): { readonly ref: RunningReference } {
  let running: RunningReference | undefined;
  beforeAll(async () => {
    running = await startRef();
  });
  afterAll(async () => {
    await running?.close();
  });
  return {
    get ref() {
      if (!running) throw new Error('the reference is read outside a test');
      return running;
    },
  };
}

/**
 * A fresh merchant (own settings, own rate limit) and a strict client for it: every answer of the reference
 * must match the spec exactly, so these tests are also the client/reference contract test.
 */
export async function merchant(ref: RunningReference, options: Partial<ClientOptions> = {}) {
  const m = await ref.control.createMerchant({ name: 'integration' });
  const client = new PspClient({ apiKey: m.api_key, baseUrl: ref.base_url, strict: true, ...options });
  return { m, client };
}

// Shared with the client's own tests (test/client/helpers.ts), which need no reference.
export { failure, outcome, PHONE } from '../client/helpers.js';
export const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
