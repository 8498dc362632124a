import { posix } from 'node:path';
// Issue 22 item 6: each public entry exports what a user needs and nothing else, each exported name under src/
// means one thing, and the domain imports nothing above it. A new export changes a list below: a conscious change,
// named in a changeset.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PspClient } from '../../src/psp-client.js';
import { describe, expect, it } from 'vitest';
import { OPERATIONS, type OperationRow } from '../../src/schemas/operations.js';
import { declaredExports, entryExports, importsOf, ROOT, sourceFiles } from './surface.js';

/** The documented surface of each entry (README, docs/*.md, the typedoc pages). */
const DOCUMENTED: Record<string, { values: string[]; types: string[] }> = {
  'src/index.ts': {
    values: [
      'AmlBlockedError',
      'ApiPromise',
      'AuthenticationError',
      'BadRequestError',
      'ConflictError',
      'ForbiddenPurposeError',
      'IdempotentConflictError',
      'InternalServerError',
      'IpNotAllowedError',
      'LIMITS',
      'LiveNotEnabledError',
      'MODES',
      'NotFoundError',
      'NotPendingError',
      'PAYMENT_METHODS',
      'PAYMENT_STATUSES',
      'PAYOUT_METHODS',
      'PAYOUT_STATUSES',
      'PermissionDeniedError',
      'PspAbortError',
      'PspApiError',
      'PspClient',
      'PspConnectionError',
      'PspError',
      'PspResponseError',
      'PspTimeoutError',
      'PspValidationError',
      'REFUND_STATUSES',
      'RateLimitError',
      'SSE_KINDS',
      'SignatureError',
      'UnprocessableEntityError',
      'WaitTimeoutError',
    ],
    types: [
      'ApiResult',
      'AppInfo',
      'AttemptContext',
      'BackoffOptions',
      'BankList',
      'BankListOptions',
      'Banks',
      'CancelPaymentResponse',
      'ClientOptions',
      'CreatePaymentInput',
      'CreatePaymentResponse',
      'CreatePayoutInput',
      'CreatePayoutResponse',
      'CreateRefundInput',
      'DisconnectReason',
      'EventStream',
      'Events',
      'FetchOptions',
      'FieldIssue',
      'Lease',
      'LogLevel',
      'Logger',
      'Middleware',
      'Operation',
      'Payment',
      'PaymentCreatedPayload',
      'PaymentMethod',
      'PaymentStatus',
      'PaymentWebhookEvent',
      'PaymentWebhookEventName',
      'Payments',
      'Payout',
      'PayoutCreatedPayload',
      'PayoutStatus',
      'PayoutWebhookEvent',
      'PayoutWebhookEventName',
      'Payouts',
      'RawRequestOptions',
      'Refund',
      'RefundCreatedPayload',
      'RefundStatus',
      'RequestOptions',
      'SBPBank',
      'SseEvent',
      'SseKind',
      'StatusChangedPayload',
      'StreamEventsOptions',
      'TelemetryOptions',
      'WaitForOptions',
      'WebhookEventName',
      'WebhookPayment',
    ],
  },
  'src/reference/index.ts': {
    values: [
      'AssertionError',
      'ConnectionReset',
      'FakeBank',
      'ManualClock',
      'RealClock',
      'SIGNATURE_VERSIONS',
      'WEBHOOK_EVENTS',
      'createReference',
      'createShadow',
      'planPaymentOutcome',
      'planPayoutOutcome',
      'readinessJUnit',
      'readinessMarkdown',
      'readinessText',
      'shadowSummary',
      'startReference',
      'startShadow',
    ],
    types: [
      'ApiKeyInfo',
      'BankAdapter',
      'BankAnswer',
      'BankRefusal',
      'CabinetApi',
      'ChaosKind',
      'Clock',
      'ControlApi',
      'CreatedEndpoint',
      'CreatedMerchant',
      'DeliveryAttempt',
      'DeliveryFilter',
      'DeliveryRecord',
      'FaultRule',
      'FaultRuleInput',
      'FaultsApi',
      'JournalEntry',
      'JournalFilter',
      'JournalOptions',
      'JournalPage',
      'MerchantSettings',
      'PaymentOutcome',
      'PayoutOutcome',
      'ReadinessFinding',
      'ReadinessItem',
      'ReadinessReport',
      'Reference',
      'ReferenceAssertions',
      'ReferenceControl',
      'ReferenceOptions',
      'ReferenceStats',
      'RequestFilter',
      'RequestInfo',
      'Restored',
      'RunningReference',
      'RunningShadow',
      'Shadow',
      'ShadowAnswer',
      'ShadowDifference',
      'ShadowItem',
      'ShadowOptions',
      'ShadowReport',
      'SignatureVersion',
      'SimulatorApi',
      'Snapshot',
      'StartReferenceOptions',
      'StartShadowOptions',
      'StartupFacts',
      'StateApi',
      'StateSaving',
      'TerminalSettings',
      'Timer',
      'TimerCallback',
      'WebhookChaosApi',
      'WebhookChaosConfig',
    ],
  },
  'src/webhooks/index.ts': {
    values: [
      'WebhookVerificationError',
      'computeSignatureHeader',
      'createWebhookHandler',
      'hmacBackend',
      'logWebhookError',
      'onceWebhook',
      'signWebhook',
      'verifyWebhook',
    ],
    types: [
      'DedupeBegin',
      'HmacBackend',
      'KnownWebhookEvent',
      'OnceWebhookOptions',
      'OnceWebhookResult',
      'PaymentWebhookEvent',
      'PaymentWebhookEventName',
      'PayoutWebhookEvent',
      'PayoutWebhookEventName',
      'RawWebhookBody',
      'SignWebhookOptions',
      'SignatureHeaderInput',
      'SignatureVersion',
      'SignedWebhook',
      'UnknownWebhookEvent',
      'UnknownWebhookEventName',
      'VerifyWebhookOptions',
      'WebhookDedupe',
      'WebhookEvent',
      'WebhookEventName',
      'WebhookEventOf',
      'WebhookHandlerOptions',
      'WebhookHandlers',
      'WebhookHeaders',
      'WebhookRunContext',
      'WebhookSecret',
      'WebhookVerificationReason',
    ],
  },
  'src/replicas/index.ts': {
    values: ['memoryDedupe', 'memoryLease', 'redisDedupe', 'redisLease'],
    types: [
      'DedupeBegin',
      'DedupeOptions',
      'IoRedisLike',
      'Lease',
      'LeaseClock',
      'LeaseOptions',
      'MemoryDedupeOptions',
      'MemoryLeaseOptions',
      'NodeRedisLike',
      'RedisClientLike',
      'RedisDedupeOptions',
      'WebhookDedupe',
    ],
  },
  'src/conformance/index.ts': {
    values: [
      'CHECK_GROUPS',
      'ContractUsageError',
      'formatContractSummary',
      'listChecks',
      'runContract',
      'toJUnit',
    ],
    types: [
      'CheckGroup',
      'CheckInfo',
      'CheckOutcome',
      'CheckResult',
      'ContractCounts',
      'ContractOptions',
      'ContractProgress',
      'ContractResult',
      'ContractWebhookOptions',
      'Observed',
    ],
  },
  'src/reference/msw.ts': {
    values: ['createReferenceHandlers'],
    types: ['ReferenceHandlersOptions'],
  },
  'src/mcp/index.ts': {
    values: ['LiveKeyRefused', 'McpOptionsError', 'createPspMcp'],
    types: ['McpDecision', 'McpPolicyOptions', 'PspMcp', 'PspMcpOptions'],
  },
};

const ENTRIES = Object.keys(DOCUMENTED);
const surface = entryExports(ENTRIES);

describe('the public entries', () => {
  it.each(ENTRIES)('%s exports exactly its documented names', (entry) => {
    const { values, types } = surface[entry]!;
    expect({ values, types }).toEqual(DOCUMENTED[entry]);
  });

  it.each(ENTRIES)(
    '%s exports no const or function as a type only (an import of it fails at run time)',
    (entry) => {
      expect(surface[entry]!.typeOnlyValues).toEqual([]);
    },
  );

  it.each(ENTRIES)('%s has every value export at run time, and no other', async (entry) => {
    const mod = (await import(pathToFileURL(join(ROOT, entry)).href)) as Record<string, unknown>;
    expect(Object.keys(mod).sort()).toEqual(DOCUMENTED[entry]!.values);
  });

  // Issue 35 item 1: a new operation's answer (and body) is a type a caller can name: `Promise<PayoutList>`.
  it("psp-sdk exports the type of every row's body and answer, by its schema's name", () => {
    const rows: OperationRow[] = Object.values(OPERATIONS);
    const named = [...new Set(rows.flatMap((row) => [row.input ?? [], row.answer ?? []].flat()))];
    expect(named.length).toBeGreaterThanOrEqual(10);
    expect(named.filter((name) => !surface['src/index.ts']!.types.includes(name))).toEqual([]);
  });

  // Issue 43 item 3: a new resource (`client.refunds`) is a type a caller can name, like `Payments`.
  it("psp-sdk exports the type of every resource of PspClient, by its class's name", () => {
    const client = new PspClient({ apiKey: 'sk_test_abc123_entries', baseUrl: 'http://127.0.0.1:9' });
    const classes = Object.values(client)
      .filter((v): v is object => typeof v === 'object' && v !== null)
      .map((v) => Object.getPrototypeOf(v).constructor.name as string)
      .filter((name) => name !== 'Object');
    expect(classes).toEqual(expect.arrayContaining(['Payments', 'Payouts', 'Banks']));
    expect(classes.filter((name) => !surface['src/index.ts']!.types.includes(name))).toEqual([]);
  });
});

describe('names under src/', () => {
  it('each exported name is declared in one file', () => {
    const where = new Map<string, string[]>();
    for (const file of sourceFiles()) {
      for (const name of declaredExports(file)) where.set(name, [...(where.get(name) ?? []), file]);
    }
    const twice = [...where].filter(([, files]) => files.length > 1);
    expect(Object.fromEntries(twice)).toEqual({});
  });

  it('no class keeps a long-lived object in a one-letter private field (`#o`): its name says what it holds', () => {
    const short = sourceFiles().flatMap(
      (f) =>
        readText(f)
          .match(/^\s+(?:readonly |static )*#[A-Za-z_]\b\s*[:=;]/gm)
          ?.map((m) => `${f}: ${m.trim()}`) ?? [],
    );
    expect(short).toEqual([]);
  });

  it('carry no deprecated alias (the package is unreleased)', () => {
    const deprecated = sourceFiles().filter((f) => /@deprecated/.test(readText(f)));
    expect(deprecated).toEqual([]);
  });

  it('the domain imports only the domain, src/schemas, src/internal and libraries (application services live above it)', () => {
    const outside = sourceFiles()
      .filter((f) => f.startsWith('src/reference/domain/'))
      .flatMap((f) => importsOf(f).map((spec) => [f, spec] as const))
      .filter(([, spec]) => spec.startsWith('.'))
      .filter(([, spec]) => !/^\.\/[^/]+$|^\.\.\/\.\.\/(schemas|internal)\/[^/]+$/.test(spec));
    expect(outside).toEqual([]);
  });

  it("the reference imports no file of the client or of psp-sdk/webhooks (shared code is src/internal's); the trigger CLI drives a client by design", () => {
    const crossing = sourceFiles()
      .filter((f) => f.startsWith('src/reference/') && f !== 'src/reference/cli/cli-trigger.ts')
      .flatMap((f) => importsOf(f).map((spec) => `${f}: ${posix.join(posix.dirname(f), spec)}`))
      .filter((line) => /: src\/(client|webhooks|resources)\//.test(line));
    expect(crossing).toEqual([]);
  });
});

function readText(file: string): string {
  return readFileSync(join(ROOT, file), 'utf8');
}
