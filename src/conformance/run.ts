// runContract: the checks against one deployment, each ending passed, failed, skipped or needs-control.
import { TIMED_OUT, withDeadline } from '../internal/deadline.js';
import { redactSecrets } from '../internal/redact.js';
import { API_KEY_RE } from '../schemas/limits.js';
import type { Check } from './check.js';
import { CheckFailure, CheckSkipped, NeedsControl } from './outcomes.js';
import { CHECKS } from './checks/index.js';
import { Kit } from './kit.js';
import {
  CHECK_GROUPS,
  type CheckInfo,
  type CheckResult,
  type ContractCounts,
  type ContractOptions,
  type ContractResult,
} from './types.js';

/** runContract was called wrongly (a live key, a bad URL, an unknown group): nothing was sent. */
export class ContractUsageError extends Error {
  override readonly name = 'ContractUsageError';
}

const CHECK_TIME_LIMIT_MS = 60_000;
// How long a check that ran out of time may take to unwind once aborted (it has nothing left to wait on).
const REQUEST_GRACE_MS = 5_000;

/**
 * Every check of the kit, as `--dry-run` lists them: id, group, spec section and quoted line, what it sends and
 * what it expects.
 *
 * @example
 * import { listChecks } from 'psp-sdk/conformance';
 *
 * for (const c of listChecks()) console.log(c.id, c.section, c.sends);
 */
export function listChecks(only?: ContractOptions['only']): CheckInfo[] {
  return selected(only).map(({ id, group, section, quote, sends, expects }) => ({
    id,
    group,
    section,
    quote,
    sends,
    expects,
  }));
}

function selected(only: ContractOptions['only']): Check[] {
  const names: readonly string[] | undefined = only;
  return CHECKS.filter((c) => !names?.length || names.includes(c.group) || names.includes(c.id));
}

const zero = (): ContractCounts => ({ passed: 0, failed: 0, skipped: 0, 'needs-control': 0 });

function checkOptions(options: ContractOptions): { baseUrl: string } {
  const key = options.apiKey;
  if (typeof key !== 'string' || !key)
    throw new ContractUsageError('apiKey is required (a test key, sk_test_...)');
  // Refused before anything is sent: the kit creates payments and payouts, and a live key moves real money.
  if (/^sk_live_/i.test(key.trim()))
    throw new ContractUsageError(
      'apiKey is a live key (sk_live_...): the contract kit runs with a test key only',
    );
  if (!API_KEY_RE.test(key) || !key.startsWith('sk_test_'))
    throw new ContractUsageError('apiKey is not a test key of the form sk_test_<6 chars>_<secret>');
  let url: URL;
  try {
    url = new URL(options.baseUrl);
  } catch {
    throw new ContractUsageError(
      `baseUrl is not a URL: ${JSON.stringify(redactSecrets(String(options.baseUrl)).slice(0, 100))}`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ContractUsageError('baseUrl must be an http(s) URL');
  for (const name of options.only ?? []) {
    if (!(CHECK_GROUPS as readonly string[]).includes(name) && !CHECKS.some((c) => c.id === name))
      throw new ContractUsageError(
        `unknown group or check ${JSON.stringify(redactSecrets(String(name)).slice(0, 60))}; groups: ${CHECK_GROUPS.join(', ')} (listChecks() names every check)`,
      );
  }
  if (options.signingSecret !== undefined && !/^thm_\S+$/.test(options.signingSecret))
    throw new ContractUsageError('signingSecret must be a thm_ secret');
  if (options.webhook?.secret !== undefined && !/^whs_\S+$/.test(options.webhook.secret))
    throw new ContractUsageError('webhook.secret must be a whs_ secret');
  return { baseUrl: `${url.origin}${url.pathname.replace(/\/+$/, '')}` };
}

const isLoopback = (host: string) => /^(localhost|127(?:\.\d+){3}|\[::1\])$/i.test(host);

/** Sets up the webhook checks: the receiver, and the secret that signs what reaches it. A string says why not. */
async function setUpWebhooks(kit: Kit, options: ContractOptions): Promise<string | undefined> {
  const { startReceiver } = await import('./receiver.js');
  const receiver = await startReceiver(options.webhook?.port ?? 0);
  kit.receiver = receiver;
  const url = options.webhook?.publicUrl ?? receiver.url;
  if (!options.webhook?.publicUrl && !isLoopback(new URL(kit.baseUrl).hostname))
    return `a service at ${new URL(kit.baseUrl).host} cannot reach the receiver on 127.0.0.1: pass webhook.publicUrl (--webhook-public-url), a public URL that forwards to it`;
  if (kit.control) {
    const merchant = await kit.merchant();
    const endpoint = (await kit.admin('POST', `/_cabinet/shops/${merchant.shop_id}/webhook-endpoints`, {
      url,
    })) as { id: string; secret: string };
    kit.webhooks = {
      endpointId: endpoint.id,
      secret: endpoint.secret,
      url,
      client: kit.clientOf(merchant),
      key: merchant.api_key,
      signingSecret: undefined,
      merchant,
    };
    return undefined;
  }
  if (!options.webhook?.secret)
    return "no whs_ secret: pass the shop's webhook endpoint secret (webhook.secret, --webhook-secret), which signs every delivery";
  kit.webhooks = {
    secret: options.webhook.secret,
    url,
    client: kit.client(),
    key: kit.apiKey,
    signingSecret: kit.signingSecret,
    merchant: undefined,
  };
  return undefined;
}

/** Why `check` cannot run in this run, if it cannot. */
function blocked(
  check: Check,
  kit: Kit,
  webhooksWhy: string | undefined,
): Pick<CheckResult, 'outcome' | 'reason'> | undefined {
  if (check.needs?.includes('control') && !kit.control)
    return {
      outcome: 'needs-control',
      reason: "needs the reference's control surface: run it against psp-reference with its admin token",
    };
  if (check.needs?.includes('signing') && !kit.signingSecret)
    return { outcome: 'skipped', reason: 'no signing secret (signingSecret, --signing-secret)' };
  if (check.needs?.includes('webhooks') && !kit.webhooks)
    return { outcome: 'skipped', reason: webhooksWhy ?? 'no webhook receiver' };
  return undefined;
}

async function runOne(check: Check, kit: Kit): Promise<Pick<CheckResult, 'outcome' | 'reason' | 'observed'>> {
  kit.budget.startCheck();
  const running = check.run(kit);
  try {
    const done = await withDeadline(running, CHECK_TIME_LIMIT_MS);
    if (done === TIMED_OUT) {
      // Its waits and requests end at the abort, so it settles at once; only then may the next check start.
      kit.budget.endCheck();
      await withDeadline(
        running.catch(() => {}),
        REQUEST_GRACE_MS,
      );
      throw new CheckFailure(`did not finish within ${CHECK_TIME_LIMIT_MS / 1000} s`);
    }
    return { outcome: 'passed' };
  } catch (error) {
    if (error instanceof CheckSkipped) return { outcome: 'skipped', reason: error.message };
    if (error instanceof NeedsControl) return { outcome: 'needs-control', reason: error.message };
    // Where a failure leaves the run: redacted with the run's own credentials, whatever a check quoted.
    const { redact } = kit;
    const reason = redact.text(String((error as Error)?.message ?? error));
    if (error instanceof CheckFailure && error.observed) {
      const { observed } = error;
      const requestId = observed.requestId && redact.text(observed.requestId);
      return {
        outcome: 'failed',
        reason,
        observed: { ...observed, requestId, body: redact.text(observed.body) },
      };
    }
    return { outcome: 'failed', reason };
  } finally {
    // What the check left running (a wait, a request) ends now, so the run ends within its bound.
    kit.budget.endCheck();
  }
}

// Over 80 lines: the run in order: set-up, each group, the clean-up, the result.
/**
 * Runs the contract kit: the executable checks of spec sections 2-8 against the service at `baseUrl`, with a
 * test key. Each check ends `passed`, `failed` (with what came back: status, request id, body with secrets
 * redacted), `skipped` (with the reason) or `needs-control` (a rule only the reference's control surface
 * reaches: pass `adminToken` of a `psp-reference`). Safe to point at a shared test-mode service: a live key is
 * refused before any request, amounts are small (at most 2 000 minor units), every payment the run leaves
 * pending is cancelled at the end, and the run is bounded (`maxRequests`, default 600; `timeLimit`, default
 * 180 s); a 429 is waited out with the SDK's own backoff.
 *
 * @throws ContractUsageError for a live key, a bad URL, an unknown group: before any request.
 * @example
 * import { runContract } from 'psp-sdk/conformance';
 *
 * const result = await runContract({ baseUrl: 'https://sandbox.psp.example', apiKey: process.env.PSP_API_KEY! });
 * for (const c of result.checks) if (c.outcome === 'failed') console.log(c.id, c.reason, c.observed);
 * process.exitCode = result.ok ? 0 : 1;
 */
export async function runContract(options: ContractOptions): Promise<ContractResult> {
  const { baseUrl } = checkOptions(options);
  const started = Date.now();
  const checks = selected(options.only);
  const groups = CHECK_GROUPS.filter((g) => checks.some((c) => c.group === g));
  const results: CheckResult[] = [];
  const counts = zero();
  if (options.dryRun) {
    for (const c of listChecks(options.only)) {
      results.push({ ...c, outcome: 'skipped', reason: 'dry run: nothing sent', durationMs: 0 });
      counts.skipped += 1;
    }
    return {
      baseUrl,
      target: options.adminToken ? 'reference' : 'service',
      ok: true,
      budgetSpent: false,
      counts,
      checks: results,
      requests: 0,
      durationMs: 0,
      dryRun: true,
    };
  }

  const kit = new Kit({
    baseUrl,
    apiKey: options.apiKey,
    signingSecret: options.signingSecret,
    adminToken: options.adminToken,
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    maxRequests: options.maxRequests ?? 600,
    deadline: started + (options.timeLimit ?? 180) * 1000,
  });
  try {
    if (options.adminToken) {
      kit.control = { token: options.adminToken, clock: 'real' };
      const clock = (await kit.admin('GET', '/_simulator/clock').catch((error: unknown) => {
        throw new Error(
          `the admin token did not reach a reference's control surface at ${baseUrl}: ${redactSecrets(String((error as Error).message))}`,
        );
      })) as { mode?: unknown };
      kit.control.clock = clock?.mode === 'manual' ? 'manual' : 'real';
    }
    const webhooksWhy = checks.some((c) => c.needs?.includes('webhooks'))
      ? await setUpWebhooks(kit, options)
      : undefined;

    for (const g of groups) {
      const mine = checks.filter((c) => c.group === g);
      const groupCounts = zero();
      const groupStart = Date.now();
      options.onProgress?.({ type: 'group-start', group: g, checks: mine.length });
      for (const check of mine) {
        const t0 = Date.now();
        const end = blocked(check, kit, webhooksWhy) ?? (await runOne(check, kit));
        const { run: _run, needs: _needs, ...info } = check;
        results.push({ ...info, ...end, durationMs: Date.now() - t0 });
        counts[end.outcome] += 1;
        groupCounts[end.outcome] += 1;
      }
      options.onProgress?.({
        type: 'group-end',
        group: g,
        counts: groupCounts,
        durationMs: Date.now() - groupStart,
      });
    }
  } finally {
    await kit.cleanUp();
    await kit.receiver?.close();
  }
  return {
    baseUrl,
    target: kit.control ? 'reference' : 'service',
    ok: counts.failed === 0 && !kit.budget.spent,
    budgetSpent: kit.budget.spent,
    counts,
    checks: results,
    requests: kit.requests,
    durationMs: Date.now() - started,
    dryRun: false,
  };
}
