// The MCP server over a target: tools/list and tools/call from the tool table, the confirmation of money-moving
// calls, and the resources. The SDK's low-level Server: its McpServer registers tools from zod schemas through
// zod's toJSONSchema, which cannot read src/schemas' custom leaves (json-schema.ts).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Redactor } from '../internal/redact.js';
import { VERSION } from '../internal/version.js';
import { Confirmations } from './confirm.js';
import { refusalOf, ToolRefusal } from './errors.js';
import { type JsonSchema, text } from './json-schema.js';
import { listResources, readResource } from './resources.js';
import type { Target } from './target.js';
import { apiTools } from './tools/api.js';
import { type Checked, defineTool, type Tool } from './tools/define.js';
import { referenceTools } from './tools/reference.js';
import { streamTools } from './tools/streams.js';

const INSTRUCTIONS = `psp-mcp drives the Payment Service through psp-sdk: payments, refunds, SBP payouts, banks, events and webhooks.
Money-moving tools (payments_refund, payments_cancel, payouts_create, events_trigger) run only after a confirmation: the client asks the user, or the call answers a confirmation_token that the \`confirm\` tool carries out once the user agreed. Never confirm on the user's behalf without asking.
Creations carry an Idempotency-Key (given or made and returned): to repeat a call, pass the same idempotency_key.
The spec and the guides are resources (psp://spec/..., psp://docs/...): read them rather than guessing a rule.`;

/** The one answer of a tool: its JSON as text, and as structured content; never a secret. */
function answer(result: Record<string, unknown>, redact: Redactor): CallToolResult {
  const text = redact.text(JSON.stringify(result));
  return {
    content: [{ type: 'text', text }],
    structuredContent: JSON.parse(text) as Record<string, unknown>,
  };
}

/** A refused call: the typed error's code, status and message, never a stack. */
function refused(err: unknown, redact: Redactor): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: JSON.stringify({ error: refusalOf(err, redact) }) }],
  };
}

/** Builds one MCP server over `target` (one per connection; they share the target). */
export function createServer(target: Target): Server {
  const server = new Server(
    { name: 'psp-mcp', version: VERSION },
    { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS },
  );
  const confirmations = new Confirmations();
  const available = [...apiTools, ...streamTools, ...(target.reference ? referenceTools : [])];
  const byName = new Map(available.map((t) => [t.name, t]));

  const run = async (tool: Tool, call: Checked) => answer(await tool.run(call, target), target.redact);

  const confirm = defineTool({
    name: 'confirm',
    title: 'Carry out a confirmed call',
    description:
      'Carries out a money-moving call that answered a confirmation_token, once the user agreed to its `action`. A token works once and for 10 minutes; nothing happens without it.',
    own: { confirmation_token: text('The token the money-moving call answered.', { max: 100 }) },
    required: ['confirmation_token'],
    output: { type: 'object' },
    destructive: true,
    run: async () => ({}),
  });
  byName.set(confirm.name, confirm);

  /** Asks the person through the client; undefined when the client cannot be asked. */
  const elicit = async (action: string): Promise<boolean | undefined> => {
    if (!server.getClientCapabilities()?.elicitation) return undefined;
    const reply = await server.elicitInput({
      message: `psp-mcp is about to: ${action}\nCarry it out?`,
      requestedSchema: {
        type: 'object',
        properties: { confirm: { type: 'boolean', title: 'Carry it out', default: false } },
        required: ['confirm'],
      },
    });
    return reply.action === 'accept' && reply.content?.confirm === true;
  };

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...byName.values()].map((t) => ({
      name: t.name,
      title: t.annotations.title,
      description: t.description,
      inputSchema: t.inputSchema as { type: 'object' } & JsonSchema,
      outputSchema: t.outputSchema as { type: 'object' } & JsonSchema,
      annotations: t.annotations,
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name, arguments: given = {} } = request.params;
    try {
      const tool = byName.get(name);
      if (!tool)
        throw new ToolRefusal(
          'unknown_tool',
          null,
          `No tool ${JSON.stringify(name.slice(0, 64))}; tools/list names them.`,
        );
      if (tool === confirm) {
        const token = confirm.check(given).own.confirmation_token as string;
        const pending = confirmations.take(token);
        const original = byName.get(pending.tool)!;
        return await run(original, original.check(pending.args));
      }
      const args = { ...given };
      if (tool.creates && args.idempotency_key === undefined) args.idempotency_key = crypto.randomUUID();
      const call = tool.check(args);
      if (!tool.moves) return await run(tool, call);
      const action = tool.moves(call);
      const agreed = await elicit(action);
      if (agreed === true) return await run(tool, call);
      if (agreed === false) {
        throw new ToolRefusal('not_confirmed', null, `Not confirmed, nothing was done: ${action}`);
      }
      const { token, expires } = confirmations.add({ tool: tool.name, args, action });
      return answer(
        {
          confirmation_required: true,
          action,
          confirmation_token: token,
          expires_at: new Date(expires).toISOString(),
          ...(typeof args.idempotency_key === 'string' ? { idempotency_key: args.idempotency_key } : {}),
        },
        target.redact,
      );
    } catch (err) {
      return refused(err, target.redact);
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: listResources() }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => ({
    contents: [readResource(request.params.uri)],
  }));
  return server;
}
