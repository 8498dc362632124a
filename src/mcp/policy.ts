// The operator's limits on what an agent may do through psp-mcp, beyond each tool's own rules and the per-call
// confirmation: which tools exist (`--read-only`, `--tools`), how much money one call and one session may move and
// how many money-moving calls a session may make, and a log of every decision. Checked before anyone is asked to
// confirm, and before any request: a call over a limit is refused with nothing sent.
import type { Redactor } from '../internal/redact.js';
import { ToolRefusal } from './errors.js';

/** One decision of the server, as the decision log writes it (one JSON line each). */
export interface McpDecision {
  /** When it was made (RFC 3339, the wall clock). */
  time: string;
  tool: string;
  /** The call's arguments, secrets redacted. */
  arguments: Record<string, unknown>;
  decision: 'allowed' | 'refused';
  why: string;
}

/** The operator's limits (`PspMcpOptions` and the CLI's flags). Every field is optional: no limit. */
export interface McpPolicyOptions {
  /** Only tools that change nothing are listed and callable. Default false. */
  readOnly?: boolean | undefined;
  /** Only these tools (by name) are listed and callable. Default every tool. */
  tools?: readonly string[] | undefined;
  /** The most minor units one money-moving call may move. Default no limit. */
  maxAmountPerCall?: number | undefined;
  /** The most minor units the money-moving calls of one session (MCP connection) may move in all. Default no limit. */
  maxAmountPerSession?: number | undefined;
  /** The most money-moving calls one session may make. Default no limit. */
  maxMoneyCallsPerSession?: number | undefined;
  /** Hears every decision (the CLI's `--decision-log` appends them to a file as JSON lines). Default none. */
  onDecision?: ((decision: McpDecision) => void) | undefined;
}

/** A limit that cannot be: an unknown tool name, a negative cap. */
export class McpOptionsError extends TypeError {
  override readonly name = 'McpOptionsError';
}

/** Checks the options against the tools there are: an {@link McpOptionsError} naming the bad one. */
export function checkPolicy(options: McpPolicyOptions, names: readonly string[]): void {
  for (const name of options.tools ?? [])
    if (!names.includes(name))
      throw new McpOptionsError(
        `tools: no tool ${JSON.stringify(name.slice(0, 64))}; the tools are ${names.join(', ')}`,
      );
  for (const field of ['maxAmountPerCall', 'maxAmountPerSession', 'maxMoneyCallsPerSession'] as const) {
    const v = options[field];
    if (v !== undefined && !(Number.isSafeInteger(v) && v >= 0))
      throw new McpOptionsError(`${field} must be a whole number of at least 0`);
  }
}

/** One session's use of the limits. */
export class SessionPolicy {
  readonly #options: McpPolicyOptions;
  readonly #redact: Redactor;
  #moved = 0;
  #calls = 0;

  constructor(options: McpPolicyOptions, redact: Redactor) {
    this.#options = options;
    this.#redact = redact;
  }

  /** Whether the tool is listed and callable at all. */
  allows(tool: { name: string; annotations: { readOnlyHint: boolean } }): boolean {
    if (this.#options.readOnly && !tool.annotations.readOnlyHint) return false;
    return !this.#options.tools || this.#options.tools.includes(tool.name);
  }

  /** Refuses a money-moving call of `amount` minor units (undefined: none, a cancel) past a limit. */
  check(amount: number | undefined): void {
    const o = this.#options;
    if (o.maxMoneyCallsPerSession !== undefined && this.#calls >= o.maxMoneyCallsPerSession)
      throw over(`this session has made its ${o.maxMoneyCallsPerSession} money-moving calls`);
    if (amount === undefined) return;
    if (o.maxAmountPerCall !== undefined && amount > o.maxAmountPerCall)
      throw over(`${amount} minor units is above the limit of ${o.maxAmountPerCall} per call`);
    if (o.maxAmountPerSession !== undefined && this.#moved + amount > o.maxAmountPerSession)
      throw over(
        `${amount} minor units would take this session past its limit of ${o.maxAmountPerSession} (${this.#moved} moved so far)`,
      );
  }

  /** Counts a money-moving call that ran. */
  spent(amount: number | undefined): void {
    this.#calls += 1;
    this.#moved += amount ?? 0;
  }

  /** Tells the decision log. */
  decide(tool: string, args: Record<string, unknown>, decision: McpDecision['decision'], why: string): void {
    const hear = this.#options.onDecision;
    if (!hear) return;
    try {
      const redacted = JSON.parse(this.#redact.text(JSON.stringify(args))) as Record<string, unknown>;
      hear({
        time: new Date().toISOString(),
        tool,
        arguments: redacted,
        decision,
        why: this.#redact.text(why),
      });
    } catch {
      // A log that throws must not change what the agent is answered.
    }
  }
}

const over = (why: string) =>
  new ToolRefusal('over_limit', null, `Nothing was done: ${why} (the operator's limit; psp-mcp's flags).`);
