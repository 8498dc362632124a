// Issue 33 item 2: the kit can fail. Each mutant is a small deviation of the service served through a test-only
// proxy (test/conformance/mutants.ts) in front of a real reference; the named checks must fail against it. Every
// mutant caught is the kit's mutation score of 100% (docs/contract-testing.md).
//
// Each run has a reference and a proxy of its own, so the runs go side by side: the kit moves the reference's
// manual clock and sets cabinet limits, which one run must not see of another's. A run holds only the checks its
// mutant names (an unknown id is refused), so no run waits out a check that its mutant breaks by the way.
import { describe, expect, it } from 'vitest';
import { runContract } from '../../src/conformance/index.js';
import { startReference } from '../../src/reference/index.js';
import { MUTANTS, type Mutant, startProxy } from './mutants.js';

/** The kit through a proxy serving `mutant` (none: the reference as it is) in front of a reference of its own. */
async function runAgainst(mutant: Mutant | undefined) {
  const ref = await startReference({
    port: 0,
    clock: 'manual',
    webhookFetch: (input, init) =>
      mutant?.webhook ? mutant.webhook(new Request(input, init), fetch) : fetch(input, init),
  });
  try {
    const proxy = await startProxy(ref.base_url, () => mutant, ref.api_key);
    try {
      const result = await runContract({
        baseUrl: proxy.url,
        apiKey: ref.api_key,
        signingSecret: ref.signing_secret,
        adminToken: ref.admin_token,
        ...(mutant ? { only: mutant.catches } : {}),
      });
      return { result, broken: proxy.broken };
    } finally {
      await proxy.close();
    }
  } finally {
    await ref.close();
  }
}

// A run of the kit takes seconds, waits for webhooks up to 10 s, and far longer on a loaded machine.
describe('the contract kit against mutants of the reference', { timeout: 180_000 }, () => {
  it('has at least 25 mutants, each naming the checks that must catch it', () => {
    expect(MUTANTS.length).toBeGreaterThanOrEqual(25);
    for (const m of MUTANTS) expect(m.catches.length, m.name).toBeGreaterThan(0);
  });

  it.concurrent('passes every check through the proxy with no mutant (the proxy itself changes nothing)', async ({
    expect,
  }) => {
    const { result, broken } = await runAgainst(undefined);
    expect(broken).toEqual([]);
    expect(result.checks.filter((c) => c.outcome !== 'passed')).toEqual([]);
  });

  // The webhook mutants start first: a delivery withheld or answered wrongly is waited out in real time (up to
  // 15 s), the longest runs here, which would otherwise start last and end alone.
  const slowFirst = [...MUTANTS].sort((a, b) => Number(!a.webhook) - Number(!b.webhook));
  it.concurrent.for(slowFirst.map((m) => [m.name, m] as const))(
    'catches: %s',
    async ([, mutant], { expect }) => {
      const { result, broken } = await runAgainst(mutant);
      expect(broken).toEqual([]);
      // Exactly the named checks ran, and each failed with a reason that says what came back.
      const got = result.checks.map((c) => `${c.id}: ${c.outcome}${c.reason ? '' : ' without a reason'}`);
      expect(got.sort()).toEqual(mutant.catches.map((id) => `${id}: failed`).sort());
      expect(result.ok).toBe(false);
    },
  );
});
