import type { SignatureVersion } from './endpoints.js';

/**
 * A way to stop one request: `abort(reason)` ends it at once (the deadline passed, or the service closed). Lighter
 * than an AbortController, which costs several listeners per request on Node's hot path.
 */
export class Abort {
  reason: Error | undefined;
  #onAbort: ((reason: Error) => void) | undefined;

  abort(reason: Error): void {
    if (this.reason) return;
    this.reason = reason;
    this.#onAbort?.(reason);
  }

  /** Registers what aborting does; runs it at once when already aborted. */
  set onAbort(fn: (reason: Error) => void) {
    this.#onAbort = fn;
    if (this.reason) fn(this.reason);
  }
}

/**
 * Sends one POST and resolves with the receiver's status once its answer has arrived and its body has been read
 * (at most {@link MAX_DRAIN_BYTES}, then the connection is dropped). Rejects on a network failure or when aborted
 * before the status line. Never follows redirects. `headers` is the caller's fresh object; a transport may add to it.
 */
export type Send = (
  url: string,
  body: Uint8Array,
  headers: Record<string, string>,
  abort: Abort,
) => Promise<number>;

/**
 * What signs one attempt: {@link signRequestHeaders} turns it into exactly the headers `signedHeaders` gives. The
 * secret is the endpoint's current one at this attempt (a rotation applies to the next attempt).
 */
export interface SignRequest {
  eventId: string;
  secret: string;
  version: SignatureVersion;
  /** Whole Unix seconds on the service clock at this attempt (what `t=` and X-PSP-Timestamp carry). */
  timestamp: number;
}

/**
 * Like {@link Send}, but the transport signs: it sends the headers {@link SignRequest} stands for, computed where it
 * sends (the worker transport: off the API's thread), byte for byte what the caller would have signed itself.
 */
export type SendSigned = (url: string, body: Uint8Array, sign: SignRequest, abort: Abort) => Promise<number>;

/** A {@link Send} that holds connections open, and lets them go on close. */
export interface Transport {
  send: Send;
  /** Present when the transport signs attempts itself; the dispatcher then hands it the secret, not headers. */
  sendSigned?: SendSigned;
  close(): void;
}

/** At most this much of a receiver's answer is read (and thrown away) so the connection can be reused. */
export const MAX_DRAIN_BYTES = 64 * 1024;

async function drain(body: ReadableStream<Uint8Array> | null): Promise<void> {
  if (!body) return;
  const reader = body.getReader();
  let seen = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      seen += value.byteLength;
      if (seen > MAX_DRAIN_BYTES) {
        await reader.cancel();
        return;
      }
    }
  } catch {
    // A receiver that resets after its status line has already answered; nothing to do.
  }
}

/** The portable transport: any `fetch` (injected for tests, or the runtime's own). */
export function fetchTransport(fetchImpl: typeof fetch): Transport {
  return {
    async send(url, body, headers, abort) {
      const controller = new AbortController();
      abort.onAbort = (reason) => controller.abort(reason);
      const res = await fetchImpl(url, {
        method: 'POST',
        body,
        headers,
        redirect: 'manual',
        signal: controller.signal,
      });
      await drain(res.body);
      return res.status;
    },
    close() {},
  };
}

interface NodeResponse {
  statusCode?: number;
  on(event: 'data', fn: (chunk: { length: number }) => void): unknown;
  on(event: 'end' | 'close' | 'error', fn: () => void): unknown;
  destroy(): void;
}
interface NodeRequest {
  on(event: 'response', fn: (res: NodeResponse) => void): unknown;
  on(event: 'error', fn: (err: unknown) => void): unknown;
  end(body: Uint8Array): void;
  destroy(err?: Error): void;
}
interface NodeAgent {
  destroy(): void;
}
interface NodeHttpModule {
  Agent: new (options: { keepAlive: boolean; maxSockets: number }) => NodeAgent;
  request(options: Record<string, unknown>): NodeRequest;
}

interface Target {
  secure: boolean;
  hostname: string;
  port: number;
  path: string;
}

function builtin(id: string): NodeHttpModule | undefined {
  try {
    const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    const mod = proc?.getBuiltinModule?.(id) as NodeHttpModule | undefined;
    return typeof mod?.request === 'function' && typeof mod.Agent === 'function' ? mod : undefined;
  } catch {
    return undefined;
  }
}

function parseTarget(url: string): Target {
  const u = new URL(url);
  // A payment's webhook_url is checked as a URI only; anything but http(s) is refused here rather than spoken to.
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new TypeError(`unsupported URL scheme ${JSON.stringify(u.protocol)}`);
  const secure = u.protocol === 'https:';
  return {
    secure,
    // node:http wants a bare IPv6 address, not the bracketed URL form.
    hostname: u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname,
    port: u.port ? Number(u.port) : secure ? 443 : 80,
    path: `${u.pathname}${u.search}`,
  };
}

/**
 * The fast transport where the runtime has node:http (Node, Deno, Bun): keep-alive agents of `maxSockets`
 * connections per receiver, and each URL parsed once. Node's fetch costs several times more per request, and the
 * reference must sustain thousands of signed deliveries a second. Reached through `process.getBuiltinModule`, so
 * bundles for other runtimes carry no `node:` import; undefined where it is missing.
 */
export function nodeTransport(maxSockets: number): Transport | undefined {
  const http = builtin('node:http');
  const https = builtin('node:https');
  if (!http || !https) return undefined;
  const agents = {
    http: new http.Agent({ keepAlive: true, maxSockets }),
    https: new https.Agent({ keepAlive: true, maxSockets }),
  };
  const targets = new Map<string, Target>();
  const targetOf = (url: string): Target => {
    let t = targets.get(url);
    if (!t) {
      if (targets.size >= 1_000) targets.clear();
      t = parseTarget(url);
      targets.set(url, t);
    }
    return t;
  };
  return {
    send(url, body, headers, abort) {
      return new Promise<number>((resolve, reject) => {
        const t = targetOf(url);
        headers['content-length'] = String(body.byteLength);
        const req = (t.secure ? https : http).request({
          method: 'POST',
          hostname: t.hostname,
          port: t.port,
          path: t.path,
          agent: t.secure ? agents.https : agents.http,
          headers,
        });
        let status: number | undefined;
        abort.onAbort = (reason) => req.destroy(reason);
        req.on('response', (res) => {
          status = res.statusCode ?? 0;
          let seen = 0;
          const done = () => resolve(status!);
          res.on('data', (chunk) => {
            seen += chunk.length;
            if (seen > MAX_DRAIN_BYTES) res.destroy();
          });
          res.on('end', done);
          res.on('close', done);
          res.on('error', done);
        });
        req.on('error', (err) => {
          if (status === undefined) reject(err);
          else resolve(status);
        });
        req.end(body);
      });
    },
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
