// Issue 33 item 2: the kit can fail. Each mutant is a small deviation of the service served through a test-only
// proxy (test/conformance/mutants.ts) in front of a real reference; the named checks must fail against it. Every
// mutant caught is the kit's mutation score of 100% (docs/contract-testing.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CheckGroup, runContract } from '../../src/conformance/index.js';
import { type RunningReference, startReference } from '../../src/reference/index.js';
import { MUTANTS, type Mutant, startProxy } from './mutants.js';

let ref: RunningReference;
let proxy: { url: string; close(): Promise<void> };
let current: Mutant | undefined;

beforeAll(async () => {
  ref = await startReference({
    port: 0,
    clock: 'manual',
    webhookFetch: (input, init) => {
      const webhook = current?.webhook;
      return webhook ? webhook(new Request(input, init), fetch) : fetch(input, init);
    },
  });
  proxy = await startProxy(ref.base_url, () => current, ref.api_key);
}, 60_000);

afterAll(async () => {
  current = undefined;
  await proxy?.close();
  await ref?.close();
});

const run = (only: CheckGroup[]) =>
  runContract({
    baseUrl: proxy.url,
    apiKey: ref.api_key,
    signingSecret: ref.signing_secret,
    adminToken: ref.admin_token,
    only,
  });

// A run of the kit takes seconds, waits for webhooks up to 10 s, and far longer on a loaded machine.
describe('the contract kit against mutants of the reference', { timeout: 180_000 }, () => {
  it('has at least 25 mutants, each naming the checks that must catch it', () => {
    expect(MUTANTS.length).toBeGreaterThanOrEqual(25);
    for (const m of MUTANTS) expect(m.catches.length, m.name).toBeGreaterThan(0);
  });

  it('passes every check through the proxy with no mutant (the proxy itself changes nothing)', async () => {
    current = undefined;
    const result = await run([]);
    expect(result.checks.filter((c) => c.outcome !== 'passed')).toEqual([]);
  });

  it.each(MUTANTS.map((m) => [m.name, m] as const))('catches: %s', async (_, mutant) => {
    current = mutant;
    try {
      const groups = [...new Set(mutant.catches.map((id) => id.split('.')[0] as CheckGroup))];
      const result = await run(groups);
      const failed = result.checks.filter((c) => c.outcome === 'failed').map((c) => c.id);
      // Each named check fails, with a reason that says what came back.
      expect(failed).toEqual(expect.arrayContaining(mutant.catches));
      for (const id of mutant.catches) expect(result.checks.find((c) => c.id === id)?.reason).toBeTruthy();
      expect(result.ok).toBe(false);
    } finally {
      current = undefined;
    }
  });
});
