// The public shapes of the contract kit: what runContract takes and what it returns.

/** The groups of checks, in the order they run. `only` takes one or more of them. */
export const CHECK_GROUPS = [
  'operations',
  'auth',
  'signing',
  'idempotency',
  'rate-limit',
  'payments',
  'refunds',
  'payouts',
  'banks',
  'events',
  'webhooks',
] as const;

/** A group of checks (see {@link CHECK_GROUPS}). */
export type CheckGroup = (typeof CHECK_GROUPS)[number];

/**
 * How a check ended:
 * - `passed`: the service did what the quoted rule says;
 * - `failed`: it did not (see `failure`);
 * - `skipped`: the check could not run here (no webhook URL, no signing secret, the time or request budget spent),
 *   with the reason;
 * - `needs-control`: the rule is only reachable through what the reference alone offers (its clock, the cabinet):
 *   run the kit against a `psp-reference` with its admin token to check it. Never counted as passed.
 */
export type CheckOutcome = 'passed' | 'failed' | 'skipped' | 'needs-control';

/** What came back on the request a failed check was looking at, secrets redacted. */
export interface Observed {
  /** `METHOD /path` of the request. */
  request: string;
  /** The HTTP status, or `undefined` when no answer arrived (a connection error, a timeout). */
  status: number | undefined;
  /** The answer's `X-Request-Id`, when it had one. */
  requestId: string | undefined;
  /** The answer's body (at most 2 000 characters), secrets redacted. */
  body: string;
}

/** One check as it is listed (`--dry-run`) and reported. */
export interface CheckInfo {
  /** Stable id, `<group>.<name>`, e.g. `idempotency.replay`. */
  id: string;
  group: CheckGroup;
  /** The spec section the check enforces, e.g. `5.6`. */
  section: string;
  /** The spec's line the check enforces, quoted. */
  quote: string;
  /** What the check sends, each operation by its name in the SDK (`payments.create`, `payments.refund`). */
  sends: string;
  /** What it expects back. */
  expects: string;
}

/** The result of one check. */
export interface CheckResult extends CheckInfo {
  outcome: CheckOutcome;
  /** Why it failed, was skipped, or needs control. */
  reason?: string | undefined;
  /** What came back, for a failed check that was looking at an answer. */
  observed?: Observed | undefined;
  /** Wall time of the check, in ms. */
  durationMs: number;
}

/** The counts of a run, by outcome. */
export type ContractCounts = Record<CheckOutcome, number>;

/** What {@link runContract} returns. */
export interface ContractResult {
  baseUrl: string;
  /** `reference` when an admin token reached the reference's control surface, else `service`. */
  target: 'reference' | 'service';
  /**
   * True when no check failed and the run was not cut short by its budget (`timeLimit`, `maxRequests`): skipped
   * and `needs-control` checks do not fail a run, but a run that stopped before its checks were done has no verdict.
   */
  ok: boolean;
  /** True when the time or request budget ran out, and the checks past it were `skipped`. */
  budgetSpent: boolean;
  counts: ContractCounts;
  checks: CheckResult[];
  /** Requests the kit sent (0 on a dry run). */
  requests: number;
  /** Wall time of the run, in ms. */
  durationMs: number;
  /** True for `dryRun: true`: nothing was sent, every check is `skipped` with what it would send. */
  dryRun: boolean;
}

/** Where webhooks reach the kit's local receiver, and how to verify them. */
export interface ContractWebhookOptions {
  /**
   * A public URL that forwards to the kit's local receiver (a tunnel), for a service that cannot reach
   * 127.0.0.1. Default: the receiver's own `http://127.0.0.1:<port>/`, which only a service on this machine
   * reaches.
   */
  publicUrl?: string | undefined;
  /**
   * The port of the local receiver on 127.0.0.1. Default 0 (any free port); a tunnel usually needs a fixed one.
   */
  port?: number | undefined;
  /**
   * The `whs_` secret of the shop's webhook endpoint: the kit's payments carry `webhook_url` (the receiver), and
   * spec 6.1 signs those deliveries with the shop endpoint's secret. Not needed against a reference with an
   * admin token (the kit makes its own merchant and endpoint there).
   */
  secret?: string | undefined;
}

/** A progress report: one per group, when it starts and when it ends. */
export type ContractProgress =
  | { type: 'group-start'; group: CheckGroup; checks: number }
  | { type: 'group-end'; group: CheckGroup; counts: ContractCounts; durationMs: number };

/** Options of {@link runContract}. */
export interface ContractOptions {
  /** The service's base URL (without `/api/v1/public`), e.g. `https://psp.example.com`. */
  baseUrl: string;
  /** A test API key (`sk_test_...`). A live key is refused before any request. */
  apiKey: string;
  /** The terminal's `thm_` signing secret: the signing checks run with it, and are skipped without it. */
  signingSecret?: string | undefined;
  /**
   * The reference's admin token: the checks that need its control surface (the cabinet, the clock) run, and are
   * otherwise reported `needs-control`.
   */
  adminToken?: string | undefined;
  /** Webhook receiver options. Without a way to verify deliveries, the webhook checks are `skipped`. */
  webhook?: ContractWebhookOptions | undefined;
  /**
   * Run only these groups and checks (default: all): a group name (`'refunds'`) selects its every check, a check
   * id (`'idempotency.payment-replay'`, as {@link listChecks} lists them) that one check. The checks run in the
   * kit's order, whatever the order here.
   */
  only?: readonly (CheckGroup | `${CheckGroup}.${string}`)[] | undefined;
  /** Called when a group starts and ends. */
  onProgress?: ((progress: ContractProgress) => void) | undefined;
  /** List what each check would send, and send nothing. Default false. */
  dryRun?: boolean | undefined;
  /** At most this many requests in the whole run; the checks after it are skipped. Default 600. */
  maxRequests?: number | undefined;
  /** At most this much wall time, in seconds; the checks after it are skipped. Default 180. */
  timeLimit?: number | undefined;
  /** The fetch to send with. Default `globalThis.fetch`. */
  fetch?: typeof fetch | undefined;
}
