// Every tool that moves money runs only after a person said yes (issue 36: clients may ignore destructiveHint).
// Where the client supports MCP elicitation the server asks it there and then; otherwise the call answers what it
// would do and a one-time token, and the `confirm` tool carries it out. The token binds the exact call, its
// Idempotency-Key included, so what is confirmed is what was shown.
import { ToolRefusal } from './errors.js';

/** How long a confirmation token stays valid. */
export const TOKEN_TTL_MS = 10 * 60_000;
/** At most this many calls wait for a confirmation; the oldest is forgotten first. */
export const MAX_PENDING = 64;

/** A call waiting for its confirmation. */
export interface PendingCall {
  tool: string;
  args: Record<string, unknown>;
  action: string;
  /** The minor units it would move, as its preflight said (undefined: none), for the operator's limits. */
  amount?: number | undefined;
  expires: number;
}

export class Confirmations {
  readonly #pending = new Map<string, PendingCall>();

  /** Keeps the call; answers its token and when it expires. */
  add(call: Omit<PendingCall, 'expires'>): { token: string; expires: number } {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    const token = `cfm_${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
    const expires = Date.now() + TOKEN_TTL_MS;
    this.#pending.set(token, { ...call, expires });
    if (this.#pending.size > MAX_PENDING) this.#pending.delete(this.#pending.keys().next().value as string);
    return { token, expires };
  }

  /** The call of `token`, forgotten as it is taken: a token works once. */
  take(token: string): PendingCall {
    const call = this.#pending.get(token);
    this.#pending.delete(token);
    if (!call || call.expires < Date.now()) {
      throw new ToolRefusal(
        'invalid_confirmation',
        null,
        'No call waits for this confirmation token: it was used already, expired (10 minutes), or never given. Call the tool again to get a new one.',
      );
    }
    return call;
  }
}
