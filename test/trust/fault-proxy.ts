import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What the proxy does to one request. The two resets are the dangerous ones for money: `reset_before` never
 * reaches the service, `reset_after` reaches it, lets it commit, and then loses the answer.
 */
export type Fault = 'reset_before' | 'reset_after' | 'hang' | '502' | '503' | '429';
export const FAULTS: readonly Fault[] = ['reset_before', 'reset_after', 'hang', '502', '503', '429'];

export interface FaultProxyOptions {
  /** Origin of the service behind the proxy, e.g. http://127.0.0.1:4010 */
  upstream: string;
  /** Share of requests that get a fault, 0..1. */
  rate: number;
  /** Which faults to draw from (uniformly). Default: all of them. */
  faults?: readonly Fault[];
  /** Seed of the deterministic generator, so a failing run can be replayed. */
  seed?: number;
  /** Retry-After value sent with injected 429s, in seconds. */
  retryAfter?: number;
  /** Only requests for which this returns true are eligible for faults (default: all). */
  eligible?: (method: string, path: string) => boolean;
}

export interface Exchange {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  /** Status the upstream answered, when the request reached it. */
  upstreamStatus?: number;
  upstreamBody?: string;
  fault?: Fault;
}

/** mulberry32: small, fast, good enough to spread faults; deterministic for a seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface FaultProxy {
  url: string;
  /** Every request seen, in arrival order, with what happened to it. */
  exchanges: Exchange[];
  counts(): Record<Fault | 'passed', number>;
  setRate(rate: number): void;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
]);

export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const random = rng(options.seed ?? 1);
  const faults = options.faults ?? FAULTS;
  let rate = options.rate;
  const exchanges: Exchange[] = [];
  const counts: Record<string, number> = { passed: 0 };
  for (const f of FAULTS) counts[f] = 0;
  const upstream = new URL(options.upstream);

  const forward = async (req: http.IncomingMessage, body: Buffer) => {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (v === undefined || HOP_BY_HOP.has(k)) continue;
      headers[k] = Array.isArray(v) ? v.join(', ') : v;
    }
    const res = await fetch(new URL(req.url ?? '/', upstream), {
      method: req.method,
      headers,
      body: body.length > 0 ? body : undefined,
    });
    const text = await res.text();
    return { res, text };
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        const key = req.headers['idempotency-key'];
        const ex: Exchange = {
          method: req.method ?? 'GET',
          path: req.url ?? '/',
          idempotencyKey: Array.isArray(key) ? key[0] : key,
        };
        exchanges.push(ex);
        const eligible = options.eligible?.(ex.method, ex.path) ?? true;
        const fault = eligible && random() < rate ? faults[Math.floor(random() * faults.length)] : undefined;
        ex.fault = fault;
        counts[fault ?? 'passed'] = (counts[fault ?? 'passed'] ?? 0) + 1;
        try {
          switch (fault) {
            case 'reset_before':
              req.socket.destroy();
              return;
            case '502':
            case '503':
              res.writeHead(Number(fault), { 'content-type': 'text/html' }).end('<html>bad gateway</html>');
              return;
            case '429':
              res
                .writeHead(429, {
                  'content-type': 'application/json',
                  'retry-after': String(options.retryAfter ?? 1),
                })
                .end(
                  JSON.stringify({ error: { code: 'rate_limited', message: 'injected by the fault proxy' } }),
                );
              return;
            case 'hang': {
              // The service commits; the answer is held until the client gives up and closes the socket.
              const { res: up, text } = await forward(req, body);
              ex.upstreamStatus = up.status;
              ex.upstreamBody = text;
              if (!req.socket.destroyed) await new Promise((r) => req.socket.once('close', r));
              return;
            }
            default: {
              const { res: up, text } = await forward(req, body);
              ex.upstreamStatus = up.status;
              ex.upstreamBody = text;
              if (fault === 'reset_after') {
                req.socket.destroy();
                return;
              }
              const out: Record<string, string> = {};
              up.headers.forEach((v, k) => {
                if (!HOP_BY_HOP.has(k) && k !== 'content-encoding') out[k] = v;
              });
              res.writeHead(up.status, out).end(text);
            }
          }
        } catch {
          req.socket.destroy();
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    counts: () => ({ ...counts }) as Record<Fault | 'passed', number>,
    setRate: (r) => {
      rate = r;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
