import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { CODE } from '../../schemas/errors.js';
import { ConnectionReset } from '../faults/index.js';
import { refusalResponse } from '../http/errors.js';
import type { RequestInfo } from '../http/context.js';
import { BodyBudget, cutSlowUnreadBody, lazyBody } from './body-reader.js';
import { answerClientError } from './client-errors.js';
import { onePipelineAtATime } from './pipelining.js';

/** A Web-standard handler, as `Reference.fetch` is: the adapter hands it each request and what the socket knows. */
export type FetchHandler = (request: Request, info: RequestInfo) => Promise<Response> | Response;

/**
 * An IPv4 client of a dual-stack (`::`) listener shows up as `::ffff:a.b.c.d`; the allow-list is written in
 * plain IPv4, so hand it the plain form.
 */
export function normalizeRemoteAddress(address: string | undefined): string | undefined {
  if (address?.toLowerCase().startsWith('::ffff:') && address.includes('.')) return address.slice(7);
  return address;
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
  /** Bytes of request bodies held right now, over every connection (at most `maxBodyBytesInFlight`). */
  readonly bodyBytesInFlight: number;
}

/** Options of {@link listenNode}. */
export interface ListenOptions {
  /** Address to bind. Default `127.0.0.1`. */
  host?: string | undefined;
  /** Port to bind; 0 takes a free one. Default 0. */
  port?: number | undefined;
  /** As `StartReferenceOptions.overrideGlobalObjects` (process-wide globals). Default: false. */
  overrideGlobalObjects?: boolean | undefined;
  /**
   * A request body must arrive whole within this many milliseconds of the service asking for it (after the key is
   * checked); a slower one is cut with 400 `bad_request`. The request's headers, too, must arrive within it (else 408
   * `request_timeout`; node's own default is 60 s), and so must a GET's or HEAD's body, which the service never reads
   * (else the connection closes). Default 10,000 (node's own request timeout is 300 s).
   */
  bodyTimeoutMs?: number | undefined;
  /**
   * Most bytes of request bodies held at once, over every connection; a body that would pass it is refused with
   * 503 `service_unavailable` and `Retry-After: 1`. One merchant's bodies may hold a quarter of it (at least 1 MiB,
   * the public API's cap), so one key's stalled uploads leave the rest to the others; the admin's may hold all of it.
   * Must be at least the largest body a route takes (a restore's snapshot). Default 64 MiB.
   */
  maxBodyBytesInFlight?: number | undefined;
  /**
   * Most connections open at once; past it a new connection is closed at once (a client sees a reset and may
   * retry). Each open socket holds memory whether or not it ever sends a byte, so without a bound anyone who can
   * reach the port grows the process. Default 4,096 (the SSE benchmark holds 1,000 streams).
   */
  maxConnections?: number | undefined;
}

/** Default of {@link ListenOptions.maxConnections}. */
export const MAX_CONNECTIONS = 4096;
/** Default of {@link ListenOptions.bodyTimeoutMs}. */
export const BODY_TIMEOUT_MS = 10_000;
/** Default of {@link ListenOptions.maxBodyBytesInFlight}. */
export const MAX_BODY_BYTES_IN_FLIGHT = 64 * 1024 * 1024;

/** `http://host:port` for a bound address; wildcard binds become the matching loopback. */
export function connectableUrl(host: string, port: number): string {
  let h = host;
  if (h === '0.0.0.0' || h === '') h = '127.0.0.1';
  else if (h === '::') h = '::1';
  return `http://${h.includes(':') ? `[${h}]` : h}:${port}`;
}

/**
 * Serves `handler` over `node:http` on `host:port` and resolves once the socket is bound. The listener is
 * @hono/node-server's: it builds the `Request` from the IncomingMessage, aborts `request.signal` when the client
 * goes away, writes the `Response` body chunk by chunk (so Server-Sent Events flush at once) and cancels that body
 * when the socket closes. The handler gets the socket's `remoteAddress`, so an IP allow-list sees the real peer,
 * never a forwarded header, and a `readBody` that reads the body only when the app asks (after the key is checked),
 * within the route's cap, the body timeout and the shared in-flight bound. The adapter answers nothing itself but what cannot become a `Request` (a malformed
 * target or Host, or what node's parser refuses). Rejects with a clear message when the port is taken or the
 * address cannot be bound.
 *
 * @example
 * ```ts
 * const server = await listenNode((req, info) => reference.fetch(req, info), { port: 0 });
 * console.log(server.url); // http://127.0.0.1:54321
 * await server.close();
 * ```
 */
/**
 * A request body left unread past this many bytes is not drained after the answer (@hono/node-server reads up to
 * 64 MiB for 500 ms so the connection can serve another request): the connection closes instead, reading none of
 * it. A body refused by its length then costs no more than its headers (issue 40, N4: a refused 1 MiB body cost
 * 5-6 ms of CPU, most of it reading what was refused). A smaller remainder is drained: keep-alive is worth it.
 */
export const DRAIN_MAX_BYTES = 64 * 1024;

/**
 * `res`, with `Connection: close` when `incoming`'s body is unread and larger than {@link DRAIN_MAX_BYTES} (or
 * chunked); once the answer is written, the socket stops reading, and the drain closes it when its 500 ms are up.
 */
function closeUnreadBody(incoming: IncomingMessage, outgoing: ServerResponse, res: Response): Response {
  if (incoming.complete || incoming.method === 'GET' || incoming.method === 'HEAD') return res;
  const { 'content-length': length, 'transfer-encoding': chunked } = incoming.headers;
  if (!chunked && !(Number(length) > DRAIN_MAX_BYTES)) return res;
  outgoing.once('finish', () => incoming.socket?.pause());
  const headers = new Headers(res.headers);
  headers.set('connection', 'close');
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}

// Over 80 lines: the server's options and its request handler share one connection state.
export function listenNode(handler: FetchHandler, options: ListenOptions = {}): Promise<NodeServer> {
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? 0;
  // Builds the URL of a request without a `Host` header (HTTP/1.0): the bound address once it is known.
  let hostname = 'localhost';
  const limits = {
    timeoutMs: options.bodyTimeoutMs ?? BODY_TIMEOUT_MS,
    maxBytesInFlight: options.maxBodyBytesInFlight ?? MAX_BODY_BYTES_IN_FLIGHT,
  };
  const budget = new BodyBudget(limits.maxBytesInFlight);
  const listener = getRequestListener(
    async (request, env) => {
      const incoming = env.incoming as IncomingMessage;
      // Node's own refusal of this (requireHostHeader) is a bare 400 without the spec's error body (RFC 9112 3.2).
      if (incoming.httpVersion === '1.1' && incoming.headers.host === undefined)
        return refusalResponse(CODE.bad_request, 'An HTTP/1.1 request must carry a Host header.');
      // The body is read only when the app asks for it: after section 5, and never for an unknown route.
      const body = lazyBody(incoming, budget, limits);
      cutSlowUnreadBody(incoming, limits.timeoutMs);
      const remoteAddress = normalizeRemoteAddress(incoming.socket?.remoteAddress);
      let res: Response;
      try {
        res = await handler(request, { remoteAddress, readBody: body.read });
      } catch (error) {
        // A fault's reset: the connection ends with a TCP RST and no answer (errorHandler then writes nothing).
        if (error instanceof ConnectionReset) {
          const socket = incoming.socket;
          if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
          else socket.destroy();
        }
        throw error;
      } finally {
        body.release();
      }
      // The client left before the answer: nobody reads its body, which must not stay open (an event stream).
      if ((env.outgoing as ServerResponse).destroyed) await res.body?.cancel().catch(() => {});
      return closeUnreadBody(incoming, env.outgoing as ServerResponse, res);
    },
    {
      get hostname() {
        return hostname;
      },
      overrideGlobalObjects: options.overrideGlobalObjects ?? false,
      // Only a request that cannot become a `Request` (malformed target or Host header) or a handler that throws
      // lands here; the reference itself answers every client mistake with its own 4xx.
      errorHandler: (error: unknown) =>
        error instanceof ConnectionReset
          ? undefined
          : error instanceof Error && error.name === 'RequestError'
            ? refusalResponse(CODE.bad_request, 'The request target or Host header is malformed.')
            : refusalResponse(CODE.internal_error, 'The reference failed to answer this request.'),
    },
  );
  // A pipelining client that never reads would have node hold every answer it asked for.
  const gated = onePipelineAtATime(listener);
  const server = createServer(
    {
      requireHostHeader: false,
      // Slow headers (slowloris) are cut like slow bodies, in seconds: node's default waits 60 s, checked every 30 s.
      // Kept under node's requestTimeout (300 s), which node requires.
      headersTimeout: Math.min(limits.timeoutMs, 300_000),
      connectionsCheckingInterval: Math.min(limits.timeoutMs, 1000),
    },
    gated,
  );
  server.maxConnections = options.maxConnections ?? MAX_CONNECTIONS;
  // An `Expect` other than 100-continue goes to the app like any request (node would answer a bare 417).
  server.on('checkExpectation', gated);
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
      hostname = new URL(url).host;
      let closing: Promise<void> | undefined;
      resolve({
        server,
        host: address.address,
        port: address.port,
        url,
        get bodyBytesInFlight() {
          return budget.held;
        },
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
