// The parts a snapshot reads and a restore replaces, in a file of their own: state/index.ts runs them, while
// restore.ts and snapshot.ts only need their shape (and index.ts imports those two).
import type { StartupFacts } from '../domain/accounts.js';
import type { Domain } from '../domain/core.js';
import type { EventStreamHub } from '../sse/index.js';
import type { WebhookService } from '../webhooks/index.js';

/** Fault rules as the snapshot sees them: listed, and replaced in two steps (check all, then commit). */
export interface FaultRulesState {
  list(): Record<string, unknown>[];
  /** Checks every rule (throws a DomainError 400 naming the bad one) and answers what puts them in force. */
  prepare(rules: Record<string, unknown>[]): () => void;
}

/** What a snapshot is taken of and restored into. */
export interface StateParts {
  domain: Domain;
  webhooks: WebhookService;
  hub: EventStreamHub;
  adminToken: string;
  /** The startup facts' merchant: replaced by the document's on restore. */
  facts: Omit<StartupFacts, 'admin_token'>;
  faults?: FaultRulesState | undefined;
}
