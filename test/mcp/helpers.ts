// psp-mcp as an agent meets it: the MCP SDK's client over stdio against the bundled bin (test/support/bundles.ts),
// with every result and every stderr line kept for the secret scan.
import type { Readable } from 'node:stream';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { expect } from 'vitest';
import { createPspMcp, type PspMcpOptions } from '../../src/mcp/index.js';
import { bundled } from '../support/bundles.js';

/** Every secret form of the API (spec 5): keys, thm_, whs_ and the reference's adm_ token, with some of the secret. */
export const SECRET_FORMS = /sk_(test|live)_[A-Za-z0-9]{6}_[A-Za-z0-9]|\b(thm|whs|adm)_[A-Za-z0-9]{4}/;

export interface Agent {
  client: Client;
  /** Calls a tool; the text is kept for the scan. */
  call(name: string, args?: Record<string, unknown>): Promise<ToolAnswer>;
  /** Everything psp-mcp wrote to stderr. */
  stderr(): string;
  /** Every text psp-mcp answered: results, tool lists, resources. */
  seen: string[];
  close(): Promise<void>;
}

export interface ToolAnswer {
  isError: boolean;
  /** The result: inside its `untrusted_data` envelope for a tool's answer; the parsed text of a refusal. */
  data: Record<string, any>;
  /** The structured content (or a refusal's parsed text) as sent, envelope included. */
  raw: Record<string, any>;
  text: string;
}

/** Starts psp-mcp with `args` and only `env` (no PSP_* from the test's environment) and connects a client. */
export async function startAgent(
  args: string[] = [],
  env: Record<string, string> = {},
  capabilities: ClientCapabilities = {},
): Promise<Agent> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bundled('mcp'), ...args],
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'pipe',
  });
  let err = '';
  (transport.stderr as Readable | null)?.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const client = new Client({ name: 'psp-mcp-test', version: '1.0.0' }, { capabilities });
  await client.connect(transport);
  return agentOf(
    client,
    () => err,
    () => client.close(),
  );
}

/**
 * The same server in this process, over the SDK's in-memory transport: what the bin runs, measured by coverage
 * (a child's lines are not). Reference mode whatever PSP_* the environment holds.
 */
export async function startInProcess(
  capabilities: ClientCapabilities = {},
  options: PspMcpOptions = {},
): Promise<Agent> {
  const mcp = await createPspMcp({ env: {}, ...options });
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await mcp.connect(serverSide);
  const client = new Client({ name: 'psp-mcp-test', version: '1.0.0' }, { capabilities });
  await client.connect(clientSide);
  return agentOf(
    client,
    () => '',
    async () => {
      await client.close();
      await mcp.close();
    },
  );
}

/** Both ways an agent meets psp-mcp, for `describe.each`. */
export const AGENTS: Array<[string, (capabilities?: ClientCapabilities) => Promise<Agent>]> = [
  ['the bin over stdio', (capabilities) => startAgent([], {}, capabilities)],
  ['in process', (capabilities) => startInProcess(capabilities)],
];

function agentOf(client: Client, stderr: () => string, close: () => Promise<void>): Agent {
  const seen: string[] = [];
  return {
    client,
    seen,
    stderr,
    async call(name, args = {}) {
      const result = await client.callTool({ name, arguments: args });
      const text = (result.content as Array<{ type: string; text?: string }>)
        .map((c) => c.text ?? '')
        .join('');
      seen.push(text, JSON.stringify(result.structuredContent ?? null));
      const raw = (result.structuredContent ?? JSON.parse(text)) as Record<string, any>;
      const data = raw.untrusted_data !== undefined && raw.error === undefined ? raw.untrusted_data : raw;
      return { isError: result.isError === true, data, raw, text };
    },
    close,
  };
}

/** A refusal: the typed error's code, status and message, and never a stack. */
export function expectRefusal(answer: ToolAnswer, code: string, status: number | null = null): string {
  expect(answer.isError, answer.text).toBe(true);
  expect(answer.data.error).toMatchObject({ code, status });
  // The server's own words in `error.message`; what the service or the reference wrote in `untrusted_data`.
  const message = (answer.data.error.message ?? answer.data.untrusted_data?.message) as string;
  expect(message).toEqual(expect.any(String));
  expect(answer.text).not.toMatch(/\n\s+at |\.ts:\d+|\.mjs:\d+/);
  return message;
}

/** A successful answer's data. */
export function ok(answer: ToolAnswer): Record<string, any> {
  expect(answer.isError, answer.text).toBe(false);
  return answer.data;
}
