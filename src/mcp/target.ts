// What the server drives: the in-process reference (the default, no key needed) or a service by its URL and key.
import { PspClient } from '../psp-client.js';
import { Redactor } from '../internal/redact.js';
import { type RunningReference, startReference } from '../reference/start.js';
import { EventBuffer } from './events.js';
import { INBOX_URL, Inbox } from './inbox.js';
import { ToolRefusal } from './errors.js';
import type { PspMcpOptions as TargetOptions } from './options.js';
import { CODE } from '../schemas/errors.js';

/** The in-process reference and what psp-mcp keeps beside it. */
export interface ReferenceSide {
  ref: RunningReference;
  inbox: Inbox;
  /** The inbox's webhook endpoint. */
  inboxEndpointId: string;
  /** The secrets of the endpoints psp-mcp created, by endpoint id: never shown, used by `webhooks_verify`. */
  secrets: Map<string, string>;
  /** Snapshots taken by `state_snapshot`, by name (they hold keys and secrets, so they stay here). */
  snapshots: Map<string, unknown>;
}

/** A driven service. */
export interface Target {
  client: PspClient;
  /** `reference` for the in-process reference, else the key's mode. */
  kind: 'reference' | 'test' | 'live';
  /** Present in reference mode only. */
  reference: ReferenceSide | undefined;
  /** What the server drives, for the words a person reads: the service's origin, or the in-process reference. */
  origin: string;
  /** Whether the agent may confirm a money-moving call itself where no person can be asked. */
  agentMayConfirm: boolean;
  events: EventBuffer;
  /** The webhook secrets `webhooks_verify` checks against (`PSP_WEBHOOK_SECRET` for a service; comma-separated). */
  webhookSecrets(endpointId?: string): string[];
  /** The redaction of what the server answers: every secret's form, and this target's own even without its prefix. */
  redact: Redactor;
  close(): Promise<void>;
}

/** The refusal of a start with a live key and no `allowLive`: the key itself is never part of it. */
export class LiveKeyRefused extends Error {
  override readonly name = 'LiveKeyRefused';
  constructor() {
    super(
      'a live key (sk_live_...) moves real money: psp-mcp refuses it unless started with --allow-live; use an sk_test_ key, or no key at all to drive the in-process reference',
    );
  }
}

const envOf = (options: TargetOptions) =>
  options.env ??
  (globalThis as { process?: { env: Record<string, string | undefined> } | undefined }).process?.env ??
  {};

/** Starts the reference or connects to the service. @throws LiveKeyRefused, PspValidationError (bad URL or key). */
export async function openTarget(options: TargetOptions = {}): Promise<Target> {
  const env = envOf(options);
  const baseUrl = options.baseUrl ?? (options.fromEnv ? env.PSP_BASE_URL : undefined);
  const apiKey = options.apiKey ?? (options.fromEnv ? env.PSP_API_KEY : undefined);
  if (baseUrl !== undefined || apiKey !== undefined) return openService(baseUrl, apiKey, options, env);
  return openReference(options.clock ?? 'manual');
}

async function openService(
  baseUrl: string | undefined,
  apiKey: string | undefined,
  options: TargetOptions,
  env: Record<string, string | undefined>,
): Promise<Target> {
  if (apiKey?.startsWith('sk_live_') && !options.allowLive) throw new LiveKeyRefused();
  // No log: stdout is the protocol's, and a refusal is reported to the agent instead.
  // Only what was given: a variable of the environment reaches the client only through `fromEnv` above.
  const client = new PspClient({
    apiKey: apiKey ?? '',
    baseUrl: baseUrl ?? '',
    signingSecret: options.fromEnv ? env.PSP_SIGNING_SECRET : null,
    logLevel: 'off',
  });
  const secrets = (env.PSP_WEBHOOK_SECRET ?? '').split(',').filter(Boolean);
  const events = new EventBuffer();
  return {
    client,
    kind: client.mode,
    reference: undefined,
    origin: new URL(client.baseUrl).origin,
    agentMayConfirm: options.allowAgentConfirmation ?? false,
    events,
    webhookSecrets: () => secrets,
    redact: new Redactor([apiKey ?? env.PSP_API_KEY, env.PSP_SIGNING_SECRET, ...secrets]),
    close: async () => events.close(),
  };
}

async function openReference(clock: 'manual' | 'real'): Promise<Target> {
  const inbox = new Inbox();
  const ref = await startReference({
    port: 0,
    clock,
    webhookFetch: inbox.fetch((input, init) => globalThis.fetch(input, init)),
  });
  const created = await ref.control.createWebhookEndpoint(ref.shop_id, { url: INBOX_URL });
  const secrets = new Map([[created.id, created.secret]]);
  const client = new PspClient({
    apiKey: ref.api_key,
    baseUrl: ref.base_url,
    signingSecret: ref.signing_secret,
    logLevel: 'off',
  });
  const events = new EventBuffer();
  // Ours alone: opened at once. A manual clock sends no `: ping`, so silence is no sign of a dead connection.
  events.open(client, clock === 'manual' ? 2 ** 31 - 1 : undefined);
  return {
    client,
    kind: 'reference',
    reference: { ref, inbox, inboxEndpointId: created.id, secrets, snapshots: new Map() },
    origin: `the in-process reference (${ref.base_url})`,
    // A test double's convenience: nothing real moves.
    agentMayConfirm: true,
    events,
    redact: new Redactor([ref.api_key, ref.signing_secret, ref.admin_token, created.secret]),
    webhookSecrets(endpointId) {
      if (endpointId === undefined) return [...secrets.values()];
      const secret = secrets.get(endpointId);
      if (!secret)
        throw new ToolRefusal(
          CODE.not_found,
          404,
          `psp-mcp holds no secret of webhook endpoint ${JSON.stringify(endpointId.slice(0, 64))}.`,
        );
      return [secret];
    },
    async close() {
      events.close();
      await ref.close();
    },
  };
}
