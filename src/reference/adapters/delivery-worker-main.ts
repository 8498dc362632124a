/**
 * What the delivery worker runs: webhook POSTs for the main thread through an undici `Agent` (keep-alive, at most
 * `maxSockets` connections per receiver, no pipelining, no redirects followed), http and https alike.
 *
 * The worker is started from this function's source text (`(${deliveryWorkerMain})()` with `eval: true`), so it
 * works alike from src under vitest, from the built ESM and CJS entries and from the `psp-reference` bin, with no
 * extra file to ship or locate. Hence the rule for this function: it must not refer to anything outside its own
 * body (no imports, no module-level names); Node's modules come from `process.getBuiltinModule`, and undici from
 * the absolute path the main thread resolved (`workerData.undiciPath`).
 *
 * Protocol: first `'ready'` out, once set up (undici loaded); then both ways one message per event-loop turn, an
 * array of entries:
 * - in: `[0, id, url, body, headers]` sends a POST; `[2, id, url, body, eventId, secret, version, timestamp]` signs
 *   it here first (the headers of `signRequestHeaders` in sign.ts, same order, same bytes); `[1, id]` abandons it
 *   (deadline or close: the socket is destroyed).
 * - out: `[id, status]` once the answer's body has been read (at most `maxDrainBytes`, else the connection is
 *   dropped), or `[id, -1, code, message]` when the request failed before a status line.
 *
 * `workerData`: `{ maxSockets, maxDrainBytes, nice, undiciPath }` (see delivery-worker.ts).
 */
export function deliveryWorkerMain(): void {
  const g = globalThis as any;
  const load = (id: string): any => g.process.getBuiltinModule(id);
  const { parentPort, workerData } = load('node:worker_threads');
  const maxDrainBytes: number = workerData.maxDrainBytes;
  // Throws here, before 'ready', when undici is missing or broken: the main thread then sends in-thread.
  const path = workerData.undiciPath;
  if (typeof path !== 'string') throw new Error('undici could not be resolved');
  const undici = load('node:module').createRequire(path)(path);
  // No interceptors: undici follows no redirect by itself, and a signed body must not go where it was not sent.
  const agent = new undici.Agent({ connections: workerData.maxSockets, pipelining: 1 });

  const targets = new Map<string, { origin: string; path: string }>();
  const targetOf = (url: string) => {
    let t = targets.get(url);
    if (!t) {
      const u = new URL(url);
      // A payment's webhook_url is checked as a URI only; anything but http(s) is refused rather than spoken to.
      if (u.protocol !== 'http:' && u.protocol !== 'https:')
        throw new TypeError(`unsupported URL scheme ${JSON.stringify(u.protocol)}`);
      t = { origin: u.origin, path: `${u.pathname}${u.search}` };
      if (targets.size >= 1_000) targets.clear();
      targets.set(url, t);
    }
    return t;
  };

  /**
   * The code and text the delivery log shows (post.ts classifies by `code`). Socket errors (ECONNREFUSED,
   * ECONNRESET, ...) and parse errors (HPE_...) pass as they are; undici's own names become what node:http says.
   * Never the request's headers: undici's messages name a bad header, not its value.
   */
  const describe = (err: any): [string | undefined, string] => {
    const code = typeof err?.code === 'string' ? err.code : undefined;
    const message = typeof err?.message === 'string' ? err.message : String(err);
    if (err?.name === 'HTTPParserError') {
      // llhttp's reason ("Expected HTTP/", "Invalid header token"), never the receiver's bytes.
      const reason = /\(([^)]{1,100})\)$/.exec(message)?.[1];
      return [code, `bad HTTP answer${reason ? ` (${reason})` : ''}`];
    }
    if (code === 'UND_ERR_SOCKET')
      return message === 'other side closed'
        ? ['ECONNRESET', 'socket hang up']
        : [undefined, `bad HTTP answer (${message})`];
    if (code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH')
      return [undefined, 'bad HTTP answer (body length does not match Content-Length)'];
    if (code === 'UND_ERR_CONNECT_TIMEOUT') return ['ETIMEDOUT', 'connect timeout'];
    if (code === 'UND_ERR_HEADERS_TIMEOUT') return ['ETIMEDOUT', 'no status line in time'];
    if (code === 'UND_ERR_HEADERS_OVERFLOW') return [undefined, 'bad HTTP answer (header overflow)'];
    return [code, message.length > 200 ? `${message.slice(0, 200)}...` : message];
  };

  const crypto = load('node:crypto');
  const hex = (secret: string, a: string | Uint8Array, b?: Uint8Array): string => {
    const h = crypto.createHmac('sha256', secret).update(a);
    return (b ? h.update(b) : h).digest('hex');
  };
  /** Exactly signRequestHeaders (src/reference/webhooks/sign.ts): v2 `t=,v1=,v2=`, v1 `sha256=`. */
  const signed = (body: Uint8Array, eventId: string, secret: string, version: string, ts: number) => {
    const legacy = hex(secret, body);
    return {
      'content-type': 'application/json',
      'user-agent': 'psp-webhook/1.0',
      'x-psp-event-id': eventId,
      'x-psp-signature':
        version === 'v1' ? `sha256=${legacy}` : `t=${ts},v1=${legacy},v2=${hex(secret, `${ts}.`, body)}`,
      'x-psp-timestamp': String(ts),
    };
  };

  interface Attempt {
    controller: { abort(reason: Error): void } | undefined;
    abandoned: boolean;
    status: number;
    seen: number;
  }
  const requests = new Map<number, Attempt>();
  let out: unknown[] = [];
  let flushing = false;
  const flush = () => {
    flushing = false;
    const batch = out;
    out = [];
    parentPort.postMessage(batch);
  };
  const report = (entry: unknown[]) => {
    out.push(entry);
    if (!flushing) {
      flushing = true;
      // After the poll phase: every answer that arrived in this turn goes back in one message.
      setImmediate(flush);
    }
  };

  /**
   * One POST through undici's dispatch API: the status from the response start, the body counted and thrown away
   * chunk by chunk (no Readable stream, no AbortController per request), the connection dropped past the limit.
   */
  const send = (id: number, url: string, body: Uint8Array, headers: Record<string, string>) => {
    let t: { origin: string; path: string };
    try {
      t = targetOf(url);
    } catch (err) {
      report([id, -1, ...describe(err)]);
      return;
    }
    const state: Attempt = { controller: undefined, abandoned: false, status: 0, seen: 0 };
    requests.set(id, state);
    const settle = (entry: unknown[]) => {
      if (requests.get(id) === state) {
        requests.delete(id);
        report(entry);
      }
    };
    /** Past the drain limit: the status counts, the connection is not worth reading to its end. */
    const enough = (controller: any) => {
      settle([id, state.status]);
      controller.abort(new Error('drain limit'));
    };
    try {
      agent.dispatch(
        { origin: t.origin, path: t.path, method: 'POST', headers, body },
        {
          onRequestStart(controller: any) {
            state.controller = controller;
            if (state.abandoned) controller.abort(new Error('abandoned'));
          },
          onResponseStart(controller: any, statusCode: number, resHeaders: Record<string, string>) {
            state.status = statusCode;
            if (Number(resHeaders['content-length']) > maxDrainBytes) enough(controller);
          },
          onResponseData(controller: any, chunk: { length: number }) {
            state.seen += chunk.length;
            if (state.seen > maxDrainBytes) enough(controller);
          },
          onResponseEnd() {
            settle([id, state.status]);
          },
          onResponseError(_controller: any, err: unknown) {
            // A failure after the status line (a reset mid-body): the answer was given.
            settle(state.status > 0 ? [id, state.status] : [id, -1, ...describe(err)]);
          },
        },
      );
    } catch (err) {
      settle([id, -1, ...describe(err)]);
    }
  };

  // Lower this thread's priority only (Linux: setpriority on a thread id), so a burst of deliveries yields the CPU
  // to the API's thread when cores are short. Elsewhere /proc/thread-self is missing and nothing changes.
  if (workerData.nice > 0) {
    try {
      const tid = Number(String(load('node:fs').readlinkSync('/proc/thread-self')).split('/').pop());
      load('node:os').setPriority(tid, workerData.nice);
    } catch {}
  }
  // Everything before this line could still fail without a request sent: the main thread counts on that.
  parentPort.postMessage('ready');
  parentPort.on('message', (batch: unknown[][]) => {
    for (const m of batch) {
      if (m[0] === 0)
        void send(m[1] as number, m[2] as string, m[3] as Uint8Array, m[4] as Record<string, string>);
      else if (m[0] === 2) {
        const body = m[3] as Uint8Array;
        void send(
          m[1] as number,
          m[2] as string,
          body,
          signed(body, m[4] as string, m[5] as string, m[6] as string, m[7] as number),
        );
      } else {
        const attempt = requests.get(m[1] as number);
        requests.delete(m[1] as number);
        // The main thread has already settled this attempt; only the socket is left to let go (or, still queued,
        // the request is dropped as soon as undici hands it a connection, before a byte is written).
        if (attempt) {
          attempt.abandoned = true;
          attempt.controller?.abort(new Error('abandoned'));
        }
      }
    }
  });
}
