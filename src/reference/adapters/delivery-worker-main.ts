import type { lightHttpClient } from './delivery-worker-http.js';

/**
 * What the delivery worker runs: keep-alive connections that POST webhook deliveries for the main thread.
 *
 * The worker is started from this function's source text (`(${deliveryWorkerMain})(${lightHttpClient})` with
 * `eval: true`), so it
 * works alike from src under vitest, from the built ESM and CJS entries and from the `psp-reference` bin, with no
 * extra file to ship or locate. Hence the rule for this function: it must not refer to anything outside its own
 * body (no imports, no module-level names); the Node modules it needs come from `process.getBuiltinModule`.
 *
 * Protocol: first `'ready'` out, once set up; then both ways one message per event-loop turn, an array of entries:
 * - in: `[0, id, url, body, headers]` sends a POST; `[1, id]` abandons it (deadline or close: the socket is destroyed).
 * - out: `[id, status]` once the answer's body has been read (at most `maxDrainBytes`), or
 *   `[id, -1, code, message]` when the request failed before a status line.
 *
 * `workerData`: `{ maxSockets, maxDrainBytes, nice }` (see delivery-worker.ts). Plain `http:` goes through
 * `makeLightClient` (delivery-worker-http.ts, passed in as source too), `https:` through node:https.
 */
export function deliveryWorkerMain(makeLightClient: typeof lightHttpClient): void {
  const g = globalThis as any;
  const load = (id: string): any => g.process.getBuiltinModule?.(id) ?? g.require(id);
  const { parentPort, workerData } = load('node:worker_threads');
  const https = load('node:https');
  const maxSockets: number = workerData.maxSockets;
  const maxDrainBytes: number = workerData.maxDrainBytes;
  // Plain http goes through the lean client (most of a delivery's CPU is the HTTP client); https through node:https.
  const light = makeLightClient(load, maxSockets, maxDrainBytes);
  const agents = { https: new https.Agent({ keepAlive: true, maxSockets }) };

  interface Target {
    secure: boolean;
    hostname: string;
    port: number;
    path: string;
  }
  const targets = new Map<string, Target>();
  const targetOf = (url: string): Target => {
    let t = targets.get(url);
    if (!t) {
      const u = new URL(url);
      // A payment's webhook_url is checked as a URI only; anything but http(s) is refused rather than spoken to.
      if (u.protocol !== 'http:' && u.protocol !== 'https:')
        throw new TypeError(`unsupported URL scheme ${JSON.stringify(u.protocol)}`);
      const secure = u.protocol === 'https:';
      t = {
        secure,
        hostname: u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname,
        port: u.port ? Number(u.port) : secure ? 443 : 80,
        path: `${u.pathname}${u.search}`,
      };
      if (targets.size >= 1_000) targets.clear();
      targets.set(url, t);
    }
    return t;
  };

  const requests = new Map<number, any>();
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

  const send = (id: number, url: string, body: Uint8Array, headers: Record<string, string>) => {
    let settled = false;
    const settle = (entry: unknown[]) => {
      if (settled) return;
      settled = true;
      requests.delete(id);
      report(entry);
    };
    const fail = (err: unknown) => {
      const e = err as { code?: unknown; message?: unknown } | null;
      settle([
        id,
        -1,
        typeof e?.code === 'string' ? e.code : undefined,
        typeof e?.message === 'string' ? e.message : String(err),
      ]);
    };
    try {
      const t = targetOf(url);
      headers['content-length'] = String(body.byteLength);
      if (!t.secure) {
        const cancel = light.post(t, headers, body, (outcome) => {
          if ('status' in outcome) settle([id, outcome.status]);
          else fail(outcome.error);
        });
        requests.set(id, { destroy: cancel });
        return;
      }
      const req = https.request({
        method: 'POST',
        hostname: t.hostname,
        port: t.port,
        path: t.path,
        agent: agents.https,
        headers,
      });
      requests.set(id, req);
      let status: number | undefined;
      req.on('response', (res: any) => {
        status = res.statusCode ?? 0;
        let seen = 0;
        const done = () => settle([id, status]);
        res.on('data', (chunk: { length: number }) => {
          seen += chunk.length;
          if (seen > maxDrainBytes) res.destroy();
        });
        res.on('end', done);
        res.on('close', done);
        res.on('error', done);
      });
      req.on('error', (err: unknown) => {
        if (status === undefined) fail(err);
        else settle([id, status]);
      });
      req.end(body);
    } catch (err) {
      fail(err);
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
        send(m[1] as number, m[2] as string, m[3] as Uint8Array, m[4] as Record<string, string>);
      else {
        const req = requests.get(m[1] as number);
        requests.delete(m[1] as number);
        // The main thread has already settled this attempt; only the socket is left to let go.
        req?.destroy();
      }
    }
  });
}
