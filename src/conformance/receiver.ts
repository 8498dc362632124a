// The kit's webhook receiver: a local HTTP server on 127.0.0.1 that records each delivery as it arrived (raw
// bytes, headers, time) and answers 200, or 500 to the deliveries a check wants to see retried.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One delivery as it arrived. */
export interface Delivery {
  /** Wall time of arrival, in ms. */
  at: number;
  headers: Record<string, string>;
  raw: string;
  json:
    | { id?: unknown; event?: unknown; created_at?: unknown; data?: Record<string, unknown> | undefined }
    | undefined;
  /** The status the receiver answered. */
  answered: number;
}

// What the receiver holds is bounded in count and bytes: through a tunnel anyone may post to it, and a genuine
// delivery is a few kilobytes.
const MAX_DELIVERIES = 1000;
const MAX_HELD_BYTES = 32 << 20;
const MAX_BODY = 1 << 20;
// Connections, and how long one may take to send its request: a client that opens many and sends slowly holds
// memory too.
const MAX_CONNECTIONS = 256;
const REQUEST_TIMEOUT_MS = 30_000;

/** The running receiver. */
export interface Receiver {
  url: string;
  readonly deliveries: readonly Delivery[];
  /** WireAnswer 500 to the deliveries for which `refuse` is true (until replaced). */
  refuse(refuse: ((delivery: Delivery) => boolean) | undefined): void;
  /** The first delivery (past or future) that `match` accepts, within `ms` of real time; `undefined` after. */
  next(match: (delivery: Delivery) => boolean, ms: number): Promise<Delivery | undefined>;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        req.destroy();
        resolve(undefined);
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(undefined));
  });
}

/** Starts the receiver on 127.0.0.1 (`port` 0: any free port). */
export async function startReceiver(port = 0): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  let held = 0;
  const waiters = new Set<{ match: (d: Delivery) => boolean; resolve: (d: Delivery | undefined) => void }>();
  let refuse: ((delivery: Delivery) => boolean) | undefined;
  const server = createServer({ requestTimeout: REQUEST_TIMEOUT_MS }, async (req, res) => {
    const raw = await readBody(req);
    if (raw === undefined) return;
    let json: Delivery['json'];
    try {
      json = JSON.parse(raw) as Delivery['json'];
    } catch {
      json = undefined;
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      headers[name] = Array.isArray(value) ? value.join(', ') : (value ?? '');
    }
    const delivery: Delivery = { at: Date.now(), headers, raw, json, answered: 200 };
    if (refuse?.(delivery)) delivery.answered = 500;
    deliveries.push(delivery);
    held += raw.length;
    while (deliveries.length > MAX_DELIVERIES || held > MAX_HELD_BYTES)
      held -= deliveries.shift()?.raw.length ?? 0;
    res.writeHead(delivery.answered, { 'content-type': 'text/plain' }).end();
    for (const waiter of waiters) {
      if (waiter.match(delivery)) {
        waiters.delete(waiter);
        waiter.resolve(delivery);
      }
    }
  });
  server.maxConnections = MAX_CONNECTIONS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}/`,
    deliveries,
    refuse(next) {
      refuse = next;
    },
    next(match, ms) {
      const seen = deliveries.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => {
        const waiter = {
          match,
          resolve: (d: Delivery | undefined) => {
            clearTimeout(timer);
            resolve(d);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          resolve(undefined);
        }, ms);
        waiters.add(waiter);
      });
    },
    close() {
      for (const waiter of waiters) waiter.resolve(undefined);
      waiters.clear();
      return new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}
