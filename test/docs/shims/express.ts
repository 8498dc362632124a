// The part of Express 5 that docs/replicas.md's Express recipe uses, on node:http, so that the recipe runs in a
// test without Express being a dependency of this project: routes by method and path, `express.raw`, the
// response helpers it calls, and Express 5's answer to a handler's rejection (500). Bound to 127.0.0.1 only.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

type Request = IncomingMessage & { body?: unknown };
type Next = (error?: unknown) => void;
type Handler = (req: Request, res: Response, next: Next) => unknown;

class Response {
  constructor(readonly raw: ServerResponse) {}
  status(code: number): this {
    this.raw.statusCode = code;
    return this;
  }
  set(fields: Record<string, string>): this {
    for (const [name, value] of Object.entries(fields)) this.raw.setHeader(name, value);
    return this;
  }
  json(body: unknown): this {
    this.raw.setHeader('content-type', 'application/json; charset=utf-8');
    this.raw.end(JSON.stringify(body));
    return this;
  }
  send(body?: unknown): this {
    this.raw.end(typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body));
    return this;
  }
}

async function run(handlers: Handler[], req: Request, res: Response): Promise<void> {
  for (const handler of handlers) {
    let next = false;
    await handler(req, res, (error) => {
      if (error) throw error;
      next = true;
    });
    if (!next) return;
  }
}

export default function express() {
  const routes: Array<{ method: string; path: string; handlers: Handler[] }> = [];
  const app = {
    post(path: string, ...handlers: Handler[]) {
      routes.push({ method: 'POST', path, handlers });
      return app;
    },
    listen(port: number, callback?: () => void): Server {
      const server = createServer((req: Request, raw) => {
        const res = new Response(raw);
        const route = routes.find((r) => r.method === req.method && r.path === req.url?.split('?')[0]);
        if (!route) return void res.status(404).send('Not Found');
        run(route.handlers, req, res).catch(() => {
          if (!raw.headersSent) res.status(500).send('Internal Server Error');
        });
      });
      return server.listen(port, '127.0.0.1', callback);
    },
  };
  return app;
}

/** `express.raw({ type })`: the body as one Buffer, for the content type given. */
express.raw = ({ type }: { type: string }): Handler => {
  return async (req, _res, next) => {
    if (!req.headers['content-type']?.startsWith(type)) return next();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    req.body = Buffer.concat(chunks);
    next();
  };
};
