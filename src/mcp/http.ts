// Streamable HTTP on loopback only: a local agent that prefers HTTP to stdio. Bound to 127.0.0.1 (never another
// address: the server holds a reference and, with a key, a merchant's API), and only requests whose Host and Origin
// name that address are served, so a web page cannot reach it by DNS rebinding.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { PspMcp } from './index.js';

/**
 * At most this many sessions at once. When all are taken, the one unused longest is closed to make room if it has
 * been unused for {@link IDLE_SESSION_MS}; otherwise the new client is told to close one.
 */
export const MAX_SESSIONS = 16;
/**
 * A session unused this long gives way to a new one when all are taken: an agent that restarts without closing
 * its session (a crash, a reload) would otherwise use one up for good, and after sixteen no agent could connect.
 */
export const IDLE_SESSION_MS = 10 * 60_000;
export const MCP_PATH = '/mcp';

/** A running HTTP endpoint. */
export interface HttpEndpoint {
  url: string;
  close(): Promise<void>;
}

function refuse(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/** Serves `mcp` at `http://127.0.0.1:<port>/mcp` (port 0: a free one). */
export async function serveHttp(mcp: PspMcp, port: number): Promise<HttpEndpoint> {
  // In the order of their last request, the one unused longest first (a Map keeps insertion order).
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; usedAt: number }>();
  const use = (sid: string, transport: StreamableHTTPServerTransport) => {
    sessions.delete(sid);
    sessions.set(sid, { transport, usedAt: Date.now() });
  };
  let origins: Set<string> = new Set();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const origin = req.headers.origin;
    if (!origins.has(`http://${req.headers.host ?? ''}`) || (origin !== undefined && !origins.has(origin))) {
      return refuse(res, 403, 'psp-mcp serves requests addressed to its loopback address only.');
    }
    if (new URL(req.url ?? '/', 'http://x').pathname !== MCP_PATH)
      return refuse(res, 404, `POST ${MCP_PATH}.`);
    const id = req.headers['mcp-session-id'];
    const known = typeof id === 'string' ? sessions.get(id) : undefined;
    if (known) {
      use(id as string, known.transport);
      return known.transport.handleRequest(req, res);
    }
    if (id !== undefined) return refuse(res, 404, 'Unknown session: initialize again.');
    if (sessions.size >= MAX_SESSIONS) {
      const [oldestId, oldest] = sessions.entries().next().value ?? [];
      if (!oldestId || !oldest || Date.now() - oldest.usedAt < IDLE_SESSION_MS)
        return refuse(
          res,
          503,
          `At most ${MAX_SESSIONS} sessions, all used within ${IDLE_SESSION_MS / 60_000} minutes: close one.`,
        );
      sessions.delete(oldestId);
      await oldest.transport.close();
    }
    // A new session: the transport answers anything but an initialize request with an error itself.
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => use(sid, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
    if (!transport.sessionId) await transport.close();
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) refuse(res, 500, 'psp-mcp failed to serve the request.');
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const { port: bound } = server.address() as { port: number };
  origins = new Set([`http://127.0.0.1:${bound}`, `http://localhost:${bound}`]);
  return {
    url: `http://127.0.0.1:${bound}${MCP_PATH}`,
    async close() {
      await Promise.all([...sessions.values()].map((s) => s.transport.close()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
