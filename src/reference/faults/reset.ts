// Its own module: the msw entry imports this class alone, not the rules and their schema.
const RESET = Symbol.for('psp-sdk.reference.connection-reset');

/**
 * Thrown by the fault middleware to drop the connection with no answer (a `reset` rule, or a `timeout` rule once
 * its delay is over). It leaves the app untouched by `onError`: the node adapter destroys the socket, and
 * `Reference.fetch` rejects with it, a `TypeError` as `fetch` rejects on a network failure.
 */
export class ConnectionReset extends TypeError {
  override readonly name = 'ConnectionReset';
  constructor(ruleId: string) {
    super(`fetch failed: the connection was reset (fault rule ${ruleId} of the reference)`);
    Object.defineProperty(this, RESET, { value: true });
  }

  // By a registry-wide brand, not the prototype: the CommonJS build bundles `psp-sdk/reference/msw` apart from
  // `psp-sdk/reference`, each with its own copy of this class.
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && RESET in value;
  }
}
