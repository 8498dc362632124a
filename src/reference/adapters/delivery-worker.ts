import { signRequestHeaders } from '../webhooks/sign.js';
import {
  type Abort,
  MAX_DRAIN_BYTES,
  nodeTransport,
  type SignRequest,
  type Transport,
} from '../webhooks/transport.js';
import { deliveryWorkerMain } from './delivery-worker-main.js';

/** What the worker is started with. */
export interface WorkerData {
  maxSockets: number;
  maxDrainBytes: number;
  nice: number;
  /** Absolute path of undici's entry, resolved on the main thread (the worker runs from source and cannot import). */
  undiciPath: string | undefined;
}

/** The part of a `worker_threads` Worker this transport uses. */
export interface DeliveryWorker {
  postMessage(value: unknown): void;
  on(event: 'message', fn: (batch: unknown[][] | 'ready') => void): unknown;
  on(event: 'error', fn: (err: unknown) => void): unknown;
  on(event: 'exit', fn: (code: number) => void): unknown;
  terminate(): unknown;
  ref(): void;
  unref(): void;
}

/** Options of {@link workerTransport}. */
export interface WorkerTransportOptions {
  /** Keep-alive connections per receiver, in the worker and in the fallback. */
  maxSockets: number;
  /** What sends when no worker can run (created lazily). Default: the in-thread node:http transport. */
  fallback?: () => Transport | undefined;
  /**
   * OS scheduling priority of the worker thread, as a nice value (Linux; ignored elsewhere). Default 5: where CPU
   * is short the API's thread is served first and deliveries take what is left (all of it on an idle machine).
   */
  nice?: number;
  /**
   * Absolute path of the undici entry the worker loads. Default: undici as resolved from this module. For tests
   * (a path that does not load makes the worker fail before it is ready, so attempts go through `fallback`).
   */
  undiciPath?: string;
  /** Starts the worker from its source. Default: `new Worker(source, { eval: true, workerData })`. For tests. */
  createWorker?: (source: string, workerData: WorkerData) => DeliveryWorker;
}

/**
 * Nice value of the delivery worker. Measured on 2 shared cores (bench/suites/webhook-delivery.mjs, 8,000 deliveries
 * released at once under GET load, 3 interleaved runs each): with undici at 10 the API lost 32-38 % during the burst
 * and deliveries fell to 4,200-4,600/s; at 5 it lost 28-41 % at 5,400-5,800/s. With the earlier hand-written client
 * 0 cost the API 46 % and 19 starved deliveries to 1,000/s on a busy machine. 5 keeps the 5,000/s the reference
 * promises while still letting the API's thread go first where CPU is short.
 */
const DEFAULT_NICE = 5;

// Taken when this module loads: a test's fake timers must not hold back the hand-over of deliveries.
const nextTurn = setImmediate;

interface Pending {
  url: string;
  body: Uint8Array;
  /** The headers to send, or, for `sendSigned`, what the worker signs with (signed here only for the fallback). */
  headers: Record<string, string> | SignRequest;
  abort: Abort;
  resolve(status: number): void;
  reject(err: Error): void;
}

const isSign = (h: Pending['headers']): h is SignRequest => typeof (h as SignRequest).secret === 'string';

/** A failure reported by the worker, with the `code` post() classifies by (ECONNREFUSED, ...). */
class DeliveryError extends Error {
  override readonly name = 'DeliveryError';
  readonly code: string | undefined;
  constructor(message: string, code?: string) {
    super(message);
    this.code = code;
  }
}

/**
 * The worker's script: {@link deliveryWorkerMain}'s own source, called. A transpiler that keeps function names
 * (esbuild's keepNames, as tsx runs it) wraps inner functions in a `__name` helper defined outside the function:
 * the worker gets a stand-in so the source runs however it was compiled.
 */
function workerSource(): string {
  return `var __name = (fn) => fn;\n(${deliveryWorkerMain.toString()})();`;
}

/**
 * Where undici is, seen from this module (src, or the built ESM and CJS entries: tsup shims `import.meta.url`).
 * Undefined when it cannot be found: the worker then fails before it is ready and the attempts go in-thread.
 */
function resolveUndici(): string | undefined {
  try {
    const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    const mod = proc?.getBuiltinModule?.('node:module') as
      | { createRequire(from: string): { resolve(id: string): string } }
      | undefined;
    return mod?.createRequire(import.meta.url).resolve('undici');
  } catch {
    return undefined;
  }
}

function defaultCreateWorker(source: string, workerData: WorkerData): DeliveryWorker {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const mod = proc?.getBuiltinModule?.('node:worker_threads') as
    | { Worker?: new (src: string, opts: Record<string, unknown>) => DeliveryWorker }
    | undefined;
  if (typeof mod?.Worker !== 'function') throw new Error('worker_threads is not available');
  return new mod.Worker(source, { eval: true, workerData, name: 'psp-webhook-delivery' });
}

/**
 * A webhook transport that sends from a `worker_threads` worker through undici (an `Agent`, keep-alive, http and
 * https alike), so the HTTP client's work (the bulk of a delivery's cost) leaves the thread that serves the API. The main thread only signs, hands the request over and
 * takes the status back, a few microseconds each: both ways, everything of one event-loop turn travels in one
 * message.
 *
 * The dispatcher's rules stay where they are: its deadline and close abort an attempt here at once (the promise
 * settles on the main thread; the worker is told to drop the socket), redirects are not followed and at most
 * {@link MAX_DRAIN_BYTES} of an answer is read, as in the in-thread transport. The worker starts with the first
 * delivery and never keeps the process alive by itself when idle.
 *
 * When no worker can be created, or one fails before it is set up, the attempts go through `fallback` (the
 * in-thread transport) instead, nothing sent twice. A worker that dies later fails the attempts it had in flight
 * (the dispatcher retries them, as after a dropped connection) and later attempts go through `fallback`.
 *
 * @example
 * ```ts
 * const transport = workerTransport({ maxSockets: 64 });
 * const status = await transport.send('http://127.0.0.1:8080/hooks', body, headers, new Abort());
 * transport.close(); // terminates the worker
 * ```
 */
export function workerTransport(options: WorkerTransportOptions): Transport {
  const makeFallback = options.fallback ?? (() => nodeTransport(options.maxSockets));
  const createWorker = options.createWorker ?? defaultCreateWorker;
  const pending = new Map<number, Pending>();
  let worker: DeliveryWorker | undefined;
  let ready = false;
  /** The worker could not run or died: later attempts go in-thread. */
  let broken = false;
  let closed = false;
  let fallback: Transport | undefined;
  let nextId = 1;
  let outbox: unknown[][] = [];
  let flushing = false;
  let referenced = false;

  const fallbackSend = (url: string, body: Uint8Array, headers: Pending['headers'], abort: Abort) => {
    fallback ??= makeFallback();
    if (!fallback) return Promise.reject(new DeliveryError('no way to send webhooks in this runtime'));
    const h = isSign(headers) ? signRequestHeaders(headers, body) : headers;
    return fallback.send(url, body, h, abort);
  };

  /** Keeps the process alive while attempts are in flight, as open sockets would; not when idle. */
  const reference = (on: boolean) => {
    if (!worker || referenced === on) return;
    referenced = on;
    if (on) worker.ref();
    else worker.unref();
  };

  const take = (id: number): Pending | undefined => {
    const p = pending.get(id);
    if (!p) return undefined;
    pending.delete(id);
    if (pending.size === 0) reference(false);
    return p;
  };

  const flush = () => {
    flushing = false;
    const batch = outbox;
    outbox = [];
    if (worker && !broken && batch.length > 0) worker.postMessage(batch);
  };

  const queue = (entry: unknown[]) => {
    outbox.push(entry);
    if (!flushing) {
      flushing = true;
      nextTurn(flush);
    }
  };

  /**
   * The worker is gone. Before it said 'ready' (set up, listening) it cannot have sent anything: its attempts go
   * in-thread. After, any of them may have reached the receiver: they fail, and the dispatcher retries them.
   */
  const lost = (reason: string) => {
    if (broken || closed) return;
    broken = true;
    const wasReady = ready;
    const w = worker;
    worker = undefined;
    outbox = [];
    const all = [...pending.values()];
    pending.clear();
    // Already exiting or exited: terminate() only makes sure, and may reject when it is too late for that.
    Promise.resolve()
      .then(() => w?.terminate())
      .catch(() => {});
    for (const p of all) {
      if (wasReady) p.reject(new DeliveryError(`the delivery worker stopped (${reason})`));
      else fallbackSend(p.url, p.body, p.headers, p.abort).then(p.resolve, p.reject);
    }
  };

  const start = (): DeliveryWorker | undefined => {
    try {
      const w = createWorker(workerSource(), {
        maxSockets: options.maxSockets,
        maxDrainBytes: MAX_DRAIN_BYTES,
        nice: options.nice ?? DEFAULT_NICE,
        undiciPath: options.undiciPath ?? resolveUndici(),
      });
      w.unref();
      w.on('message', (batch) => {
        if (!Array.isArray(batch)) {
          ready ||= batch === 'ready';
          return;
        }
        for (const m of batch) {
          const p = take(m[0] as number);
          if (!p) continue; // aborted meanwhile: already settled here
          if ((m[1] as number) >= 0) p.resolve(m[1] as number);
          else p.reject(new DeliveryError(String(m[3]), m[2] as string | undefined));
        }
      });
      w.on('error', (err) => lost(err instanceof Error ? err.name : 'error'));
      w.on('exit', (code) => lost(`exit code ${code}`));
      return w;
    } catch {
      broken = true;
      return undefined;
    }
  };

  const send = (url: string, body: Uint8Array, headers: Pending['headers'], abort: Abort) => {
    if (closed) return Promise.reject(new DeliveryError('the webhook transport is closed'));
    if (!worker && !broken) worker = start();
    if (broken || !worker) return fallbackSend(url, body, headers, abort);
    const id = nextId++;
    return new Promise<number>((resolve, reject) => {
      pending.set(id, { url, body, headers, abort, resolve, reject });
      reference(true);
      queue(
        isSign(headers)
          ? [2, id, url, body, headers.eventId, headers.secret, headers.version, headers.timestamp]
          : [0, id, url, body, headers],
      );
      abort.onAbort = (reason) => {
        if (!take(id)) return;
        reject(reason);
        queue([1, id]);
      };
    });
  };

  return {
    send,
    // The worker signs (two HMACs for v2): the API's thread only hands the secret over with the request.
    sendSigned: send,
    close() {
      if (closed) return;
      closed = true;
      const w = worker;
      worker = undefined;
      const all = [...pending.values()];
      pending.clear();
      for (const p of all) p.reject(new DeliveryError('the webhook service closed'));
      if (w) {
        Promise.resolve()
          .then(() => w.terminate())
          .catch(() => {});
      }
      fallback?.close();
    },
  };
}
