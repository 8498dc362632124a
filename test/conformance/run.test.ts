// runContract against the reference in-process (its fetch, no socket): every check passes; and the kit's safety
// promises: a live key is refused before any request, a dry run sends nothing, nothing it created stays pending,
// budgets hold, and a failure shows what came back with secrets redacted.
import { afterEach, describe, expect, it } from 'vitest';
import {
  ContractUsageError,
  formatContractSummary,
  listChecks,
  runContract,
  toJUnit,
} from '../../src/conformance/index.js';
import { createReference, type Reference } from '../../src/reference/index.js';

const refs: Reference[] = [];
afterEach(async () => {
  for (const ref of refs.splice(0)) await ref.close();
});

/** A reference in-process, and a fetch to it that records what was sent and what creations answered. */
function inProcess(clock: 'manual' | 'real' = 'manual', options: Parameters<typeof createReference>[0] = {}) {
  const ref = createReference({ clock, ...options });
  refs.push(ref);
  const sent: Array<{ method: string; url: string; authorization: string | null }> = [];
  const created: Array<{ id: string; authorization: string }> = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const req = new Request(input, init);
    sent.push({ method: req.method, url: req.url, authorization: req.headers.get('authorization') });
    const res = await ref.fetch(req);
    if (
      req.method === 'POST' &&
      new URL(req.url).pathname === '/api/v1/public/payments' &&
      res.status === 201
    ) {
      const body = (await res.clone().json()) as { payment: { id: string } };
      created.push({ id: body.payment.id, authorization: req.headers.get('authorization') ?? '' });
    }
    return res;
  };
  /** The status of each payment the run created, read after it. */
  const statuses = async () =>
    Promise.all(
      created.map(async ({ id, authorization }) => {
        const res = await ref.fetch(
          new Request(`http://ref.test/api/v1/public/payments/${id}`, { headers: { authorization } }),
        );
        return ((await res.json()) as { status: string }).status;
      }),
    );
  return { ref, fetch, sent, created, statuses };
}

// A whole run of the kit takes seconds idle, and far longer on a loaded machine.
describe('runContract against the reference in-process', { timeout: 180_000 }, () => {
  it('passes every check, sends no live key, and leaves no payment it created pending', async () => {
    const { ref, fetch, sent, created, statuses } = inProcess();
    const result = await runContract({
      baseUrl: 'http://localhost',
      apiKey: ref.api_key,
      signingSecret: ref.signing_secret,
      adminToken: ref.admin_token,
      fetch,
    });
    expect(result.checks.filter((c) => c.outcome !== 'passed')).toEqual([]);
    expect(result).toMatchObject({ ok: true, target: 'reference', dryRun: false });
    expect(result.counts.passed).toBe(listChecks().length);
    expect(result.requests).toBe(sent.length);
    expect(sent.filter((s) => /sk_live_/i.test(s.authorization ?? ''))).toEqual([]);
    expect(created.length).toBeGreaterThan(10);
    expect((await statuses()).filter((s) => s === 'pending')).toEqual([]);
  });

  // Issue 41: chaos never breaks the spec, and the kit holds the spec (an event may arrive more than once, spec 6.1).
  // Real time passes in it (a held event waits for the next one, or 5 s): a hang guard of its own for a loaded machine.
  it('passes every check against a reference with webhook chaos on', { timeout: 420_000 }, async () => {
    const webhookChaos = {
      seed: 7,
      duplicate: 0.5,
      reorder: 0.2,
      delay: { min_seconds: 0, max_seconds: 0.5 },
    };
    // A real clock: the kit waits for webhooks in real time, and a delay or a hold needs the clock to move.
    const { ref, fetch } = inProcess('real', { webhookChaos });
    const result = await runContract({
      baseUrl: 'http://localhost',
      apiKey: ref.api_key,
      signingSecret: ref.signing_secret,
      adminToken: ref.admin_token,
      fetch,
    });
    expect(result.checks.filter((c) => c.outcome !== 'passed')).toEqual([]);
    expect(await ref.control.getWebhookChaos()).toMatchObject(webhookChaos);
  });

  it('cancels what it left pending even when the request budget cut the run short', async () => {
    const { ref, fetch, created, statuses } = inProcess();
    const result = await runContract({
      baseUrl: 'http://localhost',
      apiKey: ref.api_key,
      adminToken: ref.admin_token,
      fetch,
      maxRequests: 40,
    });
    const skipped = result.checks.filter((c) => c.outcome === 'skipped');
    expect(skipped.some((c) => /budget of 40 requests/.test(c.reason ?? ''))).toBe(true);
    // A spent budget skips what is left; it fails nothing.
    expect(result.checks.filter((c) => c.outcome === 'failed')).toEqual([]);
    expect(created.length).toBeGreaterThan(0);
    expect((await statuses()).filter((s) => s === 'pending')).toEqual([]);
  });

  it('refuses a live key before any request', async () => {
    const { fetch, sent } = inProcess();
    await expect(
      runContract({ baseUrl: 'http://localhost', apiKey: 'sk_live_abc123_neverSentAnywhere0', fetch }),
    ).rejects.toThrow(ContractUsageError);
    await expect(
      runContract({ baseUrl: 'http://localhost', apiKey: 'sk_live_abc123_neverSent', fetch, dryRun: true }),
    ).rejects.toThrow(/live key/);
    expect(sent).toEqual([]);
  });

  it('lists what it would send on a dry run, and sends nothing', async () => {
    const { ref, fetch, sent } = inProcess();
    const result = await runContract({
      baseUrl: 'http://localhost',
      apiKey: ref.api_key,
      fetch,
      dryRun: true,
    });
    expect(sent).toEqual([]);
    expect(result.dryRun).toBe(true);
    expect(result.checks.length).toBe(listChecks().length);
    for (const c of result.checks) {
      expect(c.sends.length).toBeGreaterThan(5);
      expect(c.quote.length).toBeGreaterThan(5);
      expect(c.outcome).toBe('skipped');
    }
    expect(formatContractSummary(result)).toMatch(/banks\.directory\s+4\.7\s+sends banks\.list/);
  });

  it('without the admin token reports the control checks needs-control and skips webhooks with the reason; neither counts as passed', async () => {
    // A real clock: without the admin token nothing can advance a manual one, and a payout would never move.
    const { ref, fetch } = inProcess('real');
    const result = await runContract({ baseUrl: 'http://localhost', apiKey: ref.api_key, fetch });
    expect(result.target).toBe('service');
    expect(result.counts.failed).toBe(0);
    const needs = result.checks.filter((c) => c.outcome === 'needs-control').map((c) => c.id);
    expect(needs).toEqual(
      expect.arrayContaining(['auth.ip-not-allowed', 'rate-limit.retry-after', 'events.heartbeat']),
    );
    const hooks = result.checks.filter((c) => c.group === 'webhooks');
    for (const c of hooks) expect(c.outcome, c.id).not.toBe('passed');
    expect(hooks.find((c) => c.id === 'webhooks.headers')?.reason).toMatch(/whs_ secret/);
    expect(result.checks.find((c) => c.id === 'signing.signed-requests')?.outcome).toBe('skipped');
    expect(result.counts.passed).toBe(result.checks.filter((c) => c.outcome === 'passed').length);
    expect(toJUnit(result)).toMatch(/<skipped message="needs-control: /);
  });

  it('shows what came back on a failure (status, request id, body) with secrets redacted, in the summary and JUnit', async () => {
    const leaky: typeof globalThis.fetch = async () =>
      new Response(
        // The run's own key also without its prefix: only the run's redaction knows that one.
        JSON.stringify({
          error: { code: 'oops', message: 'key sk_test_abc123_leakedSecretValue9 and callerSecretValue0' },
        }),
        {
          status: 500,
          headers: { 'content-type': 'application/json', 'x-request-id': 'req_kit_1' },
        },
      );
    const result = await runContract({
      baseUrl: 'http://localhost',
      apiKey: 'sk_test_abc123_callerSecretValue0',
      fetch: leaky,
      only: ['banks'],
    });
    const directory = result.checks.find((c) => c.id === 'banks.directory');
    expect(directory).toMatchObject({
      outcome: 'failed',
      observed: { request: 'GET /api/v1/public/banks/sbp', status: 500, requestId: 'req_kit_1' },
    });
    const text = `${JSON.stringify(result)}${formatContractSummary(result)}${toJUnit(result)}`;
    expect(text).not.toMatch(/leakedSecretValue9|callerSecretValue0/);
    expect(formatContractSummary(result)).toMatch(
      /got: GET \/api\/v1\/public\/banks\/sbp -> 500 \(request id req_kit_1\)/,
    );
    expect(toJUnit(result)).toMatch(/<failure message=/);
    expect(result.ok).toBe(false);
  });

  it('fails a check whose stream the service refuses, without an unhandled rejection ending the run', async () => {
    // A service that refuses everything: the SDK's stream is begun before the payment that fails the check first,
    // so its own refusal comes after the check has already failed.
    const refuseAll: typeof globalThis.fetch = async () =>
      new Response(JSON.stringify({ error: { code: 'bad_request', message: 'no' } }), {
        status: 400,
        headers: { 'content-type': 'application/json' },
      });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const result = await runContract({
        baseUrl: 'http://localhost',
        apiKey: 'sk_test_abc123_callerSecretValue0',
        fetch: refuseAll,
        only: ['events.reconnect'],
      });
      // The stream's refusal settles within a few turns of the event loop; any unhandled one is reported by then.
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(result.checks).toMatchObject([{ id: 'events.reconnect', outcome: 'failed' }]);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it("fails a check on an answer over the SDK's 8 MiB cap or a stream line over 1 MiB, reading no more of it", async () => {
    // Bodies that pass their bound and then never end: the kit must stop at the bound, not wait or hold them.
    let served = 0;
    const endless = (type: string) => {
      served = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (served > 12 << 20) return new Promise<void>(() => {});
          served += 1 << 16;
          controller.enqueue(new Uint8Array(1 << 16).fill(97));
          return undefined;
        },
      });
      return new Response(body, { headers: { 'content-type': type } });
    };
    const base = { baseUrl: 'http://localhost', apiKey: 'sk_test_abc123_callerSecretValue0' };
    const json = await runContract({
      ...base,
      fetch: async () => endless('application/json'),
      only: ['banks.directory'],
    });
    expect(json.checks[0]).toMatchObject({ outcome: 'failed', reason: expect.stringMatching(/over 8 MiB/) });
    expect(served).toBeLessThan(10 << 20);
    const sse = await runContract({
      ...base,
      fetch: async () => endless('text/event-stream'),
      only: ['events.one-per-key'],
    });
    expect(sse.checks[0]).toMatchObject({ outcome: 'failed', reason: expect.stringMatching(/runs past/) });
    expect(served).toBeLessThan(3 << 20);
  });

  it("runs only the checks named by id, beside whole groups, in the kit's order", async () => {
    const { ref, fetch } = inProcess();
    const only = ['payments.get', 'banks', 'auth.unknown-key'] as const;
    const result = await runContract({ baseUrl: 'http://localhost', apiKey: ref.api_key, fetch, only });
    const banks = listChecks(['banks']).map((c) => c.id);
    expect(banks.length).toBeGreaterThan(1);
    expect(result.checks.map((c) => c.id)).toEqual(['auth.unknown-key', 'payments.get', ...banks]);
    expect(result.checks.every((c) => c.outcome === 'passed')).toBe(true);
    expect(listChecks(only).map((c) => c.id)).toEqual(result.checks.map((c) => c.id));
  });

  it('refuses a bad URL, an unknown group and a secret of the wrong form before any request', async () => {
    const { ref, fetch, sent } = inProcess();
    const base = { baseUrl: 'http://localhost', apiKey: ref.api_key, fetch };
    await expect(runContract({ ...base, baseUrl: 'ftp://x' })).rejects.toThrow(ContractUsageError);
    await expect(runContract({ ...base, only: ['nope' as 'auth'] })).rejects.toThrow(/unknown group/);
    await expect(runContract({ ...base, only: ['auth.nope'] })).rejects.toThrow(/unknown group or check/);
    await expect(runContract({ ...base, signingSecret: 'whs_x' })).rejects.toThrow(/thm_/);
    expect(sent).toEqual([]);
  });
});
