/**
 * `psp-sdk/mcp`: a Model Context Protocol server over psp-sdk, for coding agents (docs/mcp.md). The `psp-mcp` bin
 * runs it over stdio; this entry embeds it. Needs the optional peer `@modelcontextprotocol/sdk`.
 *
 * Safe by default: with no URL and key it starts an in-process reference and drives it; a live key is refused
 * unless `allowLive`; every tool that moves money runs only after a confirmation; every creation carries an
 * Idempotency-Key.
 *
 * @example
 * ```ts
 * import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
 * import { createPspMcp } from 'psp-sdk/mcp';
 *
 * const mcp = await createPspMcp(); // the in-process reference
 * await mcp.connect(new StdioServerTransport());
 * ```
 *
 * @packageDocumentation
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { checkPolicy } from './policy.js';
import { createServer, toolsOf } from './server.js';
import type { PspMcpOptions } from './options.js';
import { openTarget } from './target.js';

export type { PspMcpOptions } from './options.js';
export type { McpDecision, McpPolicyOptions } from './policy.js';
export { LiveKeyRefused } from './target.js';
export { McpOptionsError } from './policy.js';

/**
 * A running psp-mcp: what it drives, and MCP connections to it.
 *
 * @example
 * const mcp = await createPspMcp();
 * await mcp.connect(transport);
 * await mcp.close();
 */
export interface PspMcp {
  /** `reference` (the in-process reference), or the mode of the key it drives a service with. */
  readonly kind: 'reference' | 'test' | 'live';
  /** What it drives, as a person reads it: the service's origin, or the in-process reference and its address. */
  readonly origin: string;
  /** Serves one MCP connection over `transport` (stdio, Streamable HTTP...); several may share the server. */
  connect(transport: Transport): Promise<void>;
  /** Closes every connection, the event stream and the reference. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Starts what psp-mcp drives: the in-process reference when neither `baseUrl` nor `apiKey` is given (nor
 * `PSP_BASE_URL`/`PSP_API_KEY`), else the service at `baseUrl` with `apiKey`.
 *
 * @throws {LiveKeyRefused} for an `sk_live_` key without `allowLive`.
 * @throws {PspValidationError} for a bad URL or key (naming the field, never the key).
 * @example
 * const mcp = await createPspMcp({ clock: 'real' });
 */
export async function createPspMcp(options: PspMcpOptions = {}): Promise<PspMcp> {
  const target = await openTarget(options);
  try {
    checkPolicy(
      options,
      toolsOf(target).map((t) => t.name),
    );
  } catch (error) {
    await target.close();
    throw error;
  }
  const servers = new Set<ReturnType<typeof createServer>>();
  let closing: Promise<void> | undefined;
  return {
    kind: target.kind,
    origin: target.origin,
    async connect(transport) {
      const server = createServer(target, options);
      servers.add(server);
      server.onclose = () => servers.delete(server);
      await server.connect(transport);
    },
    close() {
      closing ??= (async () => {
        await Promise.all([...servers].map((s) => s.close()));
        await target.close();
      })();
      return closing;
    },
  };
}
