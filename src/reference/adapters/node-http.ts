import { Buffer } from 'node:buffer';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { type BodyReader, READ_BODY } from '../http/body.js';
import type { DirectRoutes } from '../http/fast-path.js';
import { RAW_HEADERS } from '../http/headers.js';
import { WireResponse } from '../http/wire-response.js';
import { writeAfterTurn } from './answer-batch.js';
import { answerClientError } from './client-errors.js';
import { answerDirect, HostCheck, readIncoming } from './node-direct.js';

/**
 * A Web-standard handler, as `Reference.fetch` is: the adapter hands it each request and the socket's address.
 * It may also answer with the reference's {@link WireResponse}, which the adapter writes as it is.
 */
export type FetchHandler = (
  request: Request,
  info: { remoteAddress?: string },
) => Promise<Response | WireResponse> | Response | WireResponse;

/** Options of {@link createNodeListener}. */
export interface NodeListenerOptions {
  /**
   * Host (and port) used to build the request URL when a client sends no `Host` header (HTTP/1.0).
   * Default: `localhost`.
   */
  hostname?: string;
  /**
   * Let @hono/node-server replace the global `Request` and `Response` with its lighter subclasses. Faster,
   * but it changes globals for the whole process, so only a process that is nothing but the server should turn it
   * on. Default: false.
   */
  overrideGlobalObjects?: boolean;
  /**
   * The reference's busiest routes, answered straight from the IncomingMessage: no `Request` is built and the
   * handler is not called for the requests they take. Internal (start.ts and the CLI pass it). Default: none.
   */
  direct?: DirectRoutes;
}

const INTERNAL_ERROR = JSON.stringify({
  error: { code: 'internal_error', message: 'The reference failed to answer this request.' },
});

function jsonError(status: number, code: string, message: string): Response {
  return new Response(status === 500 ? INTERNAL_ERROR : JSON.stringify({ error: { code, message } }), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8' },
  });
}

const NO_BODY = new Uint8Array(0);
const readNoBody: BodyReader = () => Promise.resolve(NO_BODY);

/**
 * An IPv4 client of a dual-stack (`::`) listener shows up as `::ffff:a.b.c.d`; the allow-list is written in
 * plain IPv4, so hand it the plain form.
 */
export function normalizeRemoteAddress(address: string | undefined): string | undefined {
  if (address !== undefined && address.length > 7 && address.charCodeAt(0) === 58 /* : */) {
    const lower = address.toLowerCase();
    if (lower.startsWith('::ffff:') && lower.includes('.')) return address.slice(7);
  }
  return address;
}

/**
 * A `node:http` request listener over a Web-standard handler. It builds the `Request` lazily (headers, URL and
 * body are read from the IncomingMessage only when the handler asks), streams the request body, aborts
 * `request.signal` when the client goes away, streams the `Response` body chunk by chunk (so Server-Sent
 * Events flush at once) and cancels that body stream when the socket closes. The handler gets
 * `{ remoteAddress }` of the socket, so an IP allow-list sees the real peer, never a forwarded header.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * const server = createServer(createNodeListener((req, info) => reference.fetch(req, info)));
 * server.listen(4010, '127.0.0.1');
 * ```
 */
export function createNodeListener(
  handler: FetchHandler,
  options: NodeListenerOptions = {},
): (incoming: IncomingMessage, outgoing: ServerResponse) => Promise<void> {
  const listenerOptions = {
    // Read on every request, so a caller may fill it in after the port is known.
    get hostname() {
      return options.hostname ?? 'localhost';
    },
    overrideGlobalObjects: options.overrideGlobalObjects ?? false,
    // Only a malformed request line or Host header (the Request cannot be built) or a handler that throws lands
    // here; the reference itself answers every client mistake with its own 4xx.
    errorHandler: (error: unknown) =>
      error instanceof Error && error.name === 'RequestError'
        ? jsonError(400, 'bad_request', 'The request target or Host header is malformed.')
        : jsonError(500, 'internal_error', ''),
  };
  const listener = getRequestListener((request, env) => {
    const incoming = env.incoming as IncomingMessage;
    // The reference reads the body through READ_BODY, never through `request.body`, which would make
    // @hono/node-server build a full undici Request (with its AbortController) per request. A GET or HEAD has no
    // body by definition (a plain property, not a redefined `body`: that turned the request into a slow
    // dictionary object); anything else is read straight from the IncomingMessage.
    // The reference reads its headers from the raw list (see RAW_HEADERS), so no Headers object is built.
    (request as Request & { [RAW_HEADERS]?: readonly string[] })[RAW_HEADERS] = incoming.rawHeaders;
    if (incoming.method === 'GET' || incoming.method === 'HEAD') {
      (request as Request & { [READ_BODY]?: BodyReader })[READ_BODY] = readNoBody;
    } else {
      let read: Promise<Uint8Array | undefined> | undefined;
      const reader: BodyReader = (maxBytes) => {
        read ??= readIncoming(incoming, maxBytes);
        return read;
      };
      (request as Request & { [READ_BODY]?: BodyReader })[READ_BODY] = reader;
    }
    const answer = handler(request, {
      remoteAddress: normalizeRemoteAddress(incoming.socket?.remoteAddress),
    });
    return answer instanceof Promise
      ? answer.then((res) => settle(res, env.outgoing as ServerResponse))
      : settle(answer, env.outgoing as ServerResponse);
  }, listenerOptions) as (incoming: IncomingMessage, outgoing: ServerResponse) => Promise<void>;
  const direct = options.direct;
  if (direct === undefined) return listener;
  const hosts = new HostCheck();
  return (incoming, outgoing) => {
    let answer: ReturnType<typeof answerDirect>;
    try {
      answer = answerDirect(
        direct,
        incoming,
        normalizeRemoteAddress(incoming.socket?.remoteAddress),
        listenerOptions.hostname,
        hosts,
      );
    } catch {
      failDirect(outgoing);
      return Promise.resolve();
    }
    if (answer === undefined) return listener(incoming, outgoing);
    // Direct answers are fresh WireResponses (json() and the error mapping make nothing else): settle writes them.
    if (!(answer instanceof Promise)) {
      settle(answer, outgoing);
      return Promise.resolve();
    }
    return answer.then(
      (res) => {
        settle(res, outgoing);
      },
      () => failDirect(outgoing),
    );
  };
}

/**
 * The reference's direct routes map every error to an answer themselves; a throw that still gets here is a bug.
 * It gets the 500 the full app's error handler would give, instead of escaping the request listener (which
 * would end the process).
 */
function failDirect(outgoing: ServerResponse): void {
  if (outgoing.headersSent || outgoing.destroyed) return;
  outgoing.writeHead(500, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(INTERNAL_ERROR.length),
  });
  outgoing.end(INTERNAL_ERROR);
}

/**
 * Writes a {@link WireResponse} straight to the socket (status, headers, Content-Length, the body text in one
 * `end`, with the rest of the turn's answers) and tells @hono/node-server it is sent; any other answer goes to
 * @hono/node-server as it is.
 */
function settle(res: Response | WireResponse, outgoing: ServerResponse): Response {
  if (!(res instanceof WireResponse)) {
    // The client left before the answer was ready, and @hono/node-server skips a body it cannot write: cancel
    // it, so a stream's producer (an event stream's hub) lets go of it.
    if (outgoing.destroyed) res.body?.cancel().catch(() => {});
    return res;
  }
  const headers = res.outgoingHeaders();
  // A WireResponse someone already turned into a Response (and maybe read) is written as that Response.
  if (headers === undefined) return res.toResponse();
  // The record is the WireResponse's own and is written once, here: no copy.
  headers['content-length'] = String(Buffer.byteLength(res.body));
  writeAfterTurn(outgoing, res.status, headers, res.body);
  return RESPONSE_ALREADY_SENT;
}

/** A running `node:http` server of {@link listenNode}. */
export interface NodeServer {
  readonly server: Server;
  /** The bound address as the OS reports it (`127.0.0.1`, `::1`, `0.0.0.0`, ...). */
  readonly host: string;
  /** The bound port (the real one when 0 was asked for). */
  readonly port: number;
  /** `http://host:port`, with a wildcard host replaced by the loopback address so the URL is connectable. */
  readonly url: string;
  /**
   * Stops accepting connections, destroys every open one (open SSE streams included) and resolves when the
   * server is closed. Safe to call twice.
   */
  close(): Promise<void>;
}

/** Options of {@link listenNode}. */
export interface ListenOptions extends NodeListenerOptions {
  /** Address to bind. Default `127.0.0.1`. */
  host?: string;
  /** Port to bind; 0 takes a free one. Default 0. */
  port?: number;
}

/** `http://host:port` for a bound address; wildcard binds become the matching loopback. */
export function connectableUrl(host: string, port: number): string {
  let h = host;
  if (h === '0.0.0.0' || h === '') h = '127.0.0.1';
  else if (h === '::') h = '::1';
  return `http://${h.includes(':') ? `[${h}]` : h}:${port}`;
}

/**
 * Serves `handler` over `node:http` on `host:port` and resolves once the socket is bound. Rejects with a
 * clear message when the port is taken or the address cannot be bound.
 *
 * @example
 * ```ts
 * const server = await listenNode((req, info) => reference.fetch(req, info), { port: 0 });
 * console.log(server.url); // http://127.0.0.1:54321
 * await server.close();
 * ```
 */
export function listenNode(handler: FetchHandler, options: ListenOptions = {}): Promise<NodeServer> {
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? 0;
  const listenerOptions: NodeListenerOptions = { ...options };
  const server = createServer(createNodeListener(handler, listenerOptions));
  server.on('clientError', answerClientError);
  return new Promise<NodeServer>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.close();
      const reason =
        error.code === 'EADDRINUSE'
          ? `port ${port} is already in use on ${host} (use port 0 for a free port)`
          : error.code === 'EADDRNOTAVAIL'
            ? `address ${host} is not available on this machine`
            : error.code === 'EACCES'
              ? `permission denied to bind ${host}:${port}`
              : error.message;
      reject(new Error(`Cannot start the reference server: ${reason}.`, { cause: error }));
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      const address = server.address() as AddressInfo;
      const url = connectableUrl(address.address, address.port);
      listenerOptions.hostname = new URL(url).host;
      let closing: Promise<void> | undefined;
      resolve({
        server,
        host: address.address,
        port: address.port,
        url,
        close: () => {
          closing ??= new Promise<void>((done) => {
            server.close(() => done());
            // Keep-alive and streaming sockets would hold close() open for minutes; end them now.
            server.closeAllConnections?.();
          });
          return closing;
        },
      });
    });
  });
}
