import type { McpPolicyOptions } from './policy.js';

/**
 * Options of `createPspMcp`: what psp-mcp drives, and the operator's limits on what an agent may do through it
 * (`readOnly`, `tools`, `maxAmountPerCall`, `maxAmountPerSession`, `maxMoneyCallsPerSession`, `onDecision`). Every
 * field is optional; with none it drives an in-process reference.
 *
 * @example createPspMcp({ baseUrl: 'http://127.0.0.1:4010', apiKey: key, maxAmountPerCall: 10_000 })
 */
export interface PspMcpOptions extends McpPolicyOptions {
  /** The service's address; with `apiKey`, psp-mcp drives it instead of a reference. Default: none (see `fromEnv`). */
  baseUrl?: string | undefined;
  /** An `sk_test_` key (`sk_live_` only with `allowLive`). Default: none (see `fromEnv`). */
  apiKey?: string | undefined;
  /**
   * Take `PSP_BASE_URL` and `PSP_API_KEY` from the environment when `baseUrl` and `apiKey` are not given. Default
   * false: variables a guide told the user to export do not turn psp-mcp against a real service unasked.
   */
  fromEnv?: boolean | undefined;
  /** Accept an `sk_live_` key. Default false: a live key is refused at start. */
  allowLive?: boolean | undefined;
  /**
   * Against a service (not the in-process reference), let the agent confirm a money-moving call itself when the
   * client cannot ask a person (no MCP elicitation): the call answers a `confirmation_token` that the agent may pass
   * to `confirm`, with no person involved. Default false: such a call is refused with `confirmation_unavailable`.
   * Against the in-process reference the agent may always confirm (a test double's convenience).
   */
  allowAgentConfirmation?: boolean | undefined;
  /** The reference's clock: `'manual'` (default: time moves only with `clock_advance`) or `'real'`. */
  clock?: 'manual' | 'real' | undefined;
  /** Where the variables come from. Default `process.env` where there is one. */
  env?: Record<string, string | undefined> | undefined;
}
