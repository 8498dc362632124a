/**
 * The small part of Express, Fastify and Deno that the webhook recipes in docs/webhooks.md use, typed after those
 * libraries' own declarations. They are not dependencies of this project, so without these the recipes could not
 * be type-checked at all; with them, the psp-sdk side of each recipe (the arguments of verifyWebhook, the event
 * types) is checked like every other block.
 */
declare module 'express' {
  import type { IncomingHttpHeaders, Server } from 'node:http';

  interface Request {
    body: unknown;
    headers: IncomingHttpHeaders;
    method: string;
    url: string;
  }
  interface Response {
    status(code: number): Response;
    send(body?: unknown): Response;
    sendStatus(code: number): Response;
    json(body: unknown): Response;
    end(): Response;
  }
  type NextFunction = (err?: unknown) => void;
  type RequestHandler = (req: Request, res: Response, next: NextFunction) => unknown;
  interface Application {
    post(path: string, ...handlers: RequestHandler[]): Application;
    get(path: string, ...handlers: RequestHandler[]): Application;
    use(...handlers: Array<RequestHandler | string>): Application;
    listen(port: number, callback?: () => void): Server;
  }
  interface Express {
    (): Application;
    raw(options?: { type?: string | string[]; limit?: string | number }): RequestHandler;
    json(options?: { type?: string | string[]; limit?: string | number }): RequestHandler;
  }
  const express: Express;
  export default express;
  export type { Application, NextFunction, Request, RequestHandler, Response };
}

declare module 'fastify' {
  import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

  interface FastifyRequest {
    body: unknown;
    headers: IncomingHttpHeaders;
    raw: IncomingMessage;
  }
  interface FastifyReply {
    code(status: number): FastifyReply;
    status(status: number): FastifyReply;
    header(name: string, value: string): FastifyReply;
    send(payload?: unknown): FastifyReply;
  }
  type Done = (err: Error | null, body?: unknown) => void;
  interface FastifyInstance {
    addContentTypeParser(
      contentType: string | string[] | RegExp,
      options: { parseAs: 'buffer' | 'string'; bodyLimit?: number },
      parser: (request: FastifyRequest, body: Buffer | string, done: Done) => void,
    ): void;
    post(path: string, handler: (request: FastifyRequest, reply: FastifyReply) => unknown): FastifyInstance;
    register(plugin: (instance: FastifyInstance) => unknown | Promise<unknown>): FastifyInstance;
    listen(options: { port: number; host?: string }): Promise<string>;
  }
  export default function Fastify(options?: object): FastifyInstance;
  export type { FastifyInstance, FastifyReply, FastifyRequest };
}

/** The part of Deno's global namespace the Deno recipes use, after lib.deno.d.ts. */
declare namespace Deno {
  interface ServeHandlerInfo {
    remoteAddr: { hostname: string; port: number; transport: 'tcp' | 'udp' };
  }
  type ServeHandler = (request: Request, info: ServeHandlerInfo) => Response | Promise<Response>;
  interface ServeOptions {
    port?: number;
    hostname?: string;
    signal?: AbortSignal;
    onListen?: (localAddr: { hostname: string; port: number }) => void;
  }
  interface HttpServer {
    finished: Promise<void>;
    shutdown(): Promise<void>;
  }
  function serve(handler: ServeHandler): HttpServer;
  function serve(options: ServeOptions, handler: ServeHandler): HttpServer;
  function serve(options: ServeOptions & { handler: ServeHandler }): HttpServer;
  const env: { get(key: string): string | undefined };
  function exit(code?: number): never;
}
