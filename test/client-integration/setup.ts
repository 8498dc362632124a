import type { ClientOptions } from '../../src/client/options.js';
import { PspClient } from '../../src/index.js';
import { type RunningReference, startReference } from '../../src/reference/index.js';

/** A reference on 127.0.0.1, a free port and a manual clock: nothing in it moves unless a test says so. */
export function startRef(): Promise<RunningReference> {
  return startReference({ host: '127.0.0.1', port: 0, clock: 'manual' });
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

/** The settled value or the error of a call, for assertions on either. */
export async function outcome<T>(
  p: PromiseLike<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await p };
  } catch (error) {
    return { ok: false, error };
  }
}

export async function failure(p: PromiseLike<unknown>): Promise<unknown> {
  const r = await outcome(p);
  if (r.ok) throw new Error(`expected a failure, got ${JSON.stringify(r.value)}`);
  return r.error;
}

export const PHONE = '+79001234567';
export const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
