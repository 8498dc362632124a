/** How a request ended: the status once the answer was read (or given up on), or the error before any status. */
export type PostOutcome = { status: number } | { error: { code?: string; message: string } };

/** A keep-alive HTTP/1.1 POST client over plain TCP, as {@link lightHttpClient} makes it. */
export interface LightHttpClient {
  /** Sends one POST; `done` is called exactly once. Answers a cancel function that drops the connection. */
  post(
    target: { hostname: string; port: number; path: string },
    headers: Record<string, string>,
    body: Uint8Array,
    done: (outcome: PostOutcome) => void,
  ): () => void;
}

/**
 * A lean HTTP/1.1 client for webhook POSTs over plain `http:`, used inside the delivery worker: node:http's client
 * costs about 55 µs of CPU per request here, this one about 20, and at thousands of deliveries a second on a shared
 * machine that difference is what the API's thread loses. It writes exactly the bytes node:http writes (the headers
 * in order, then `Host` and `Connection: keep-alive`), reads the status line and the framing headers only
 * (`content-length`, `transfer-encoding: chunked`, `connection`), skips 1xx answers, reads at most `maxDrainBytes`
 * of a body, and keeps a connection for reuse only after a complete, well-framed answer. Anything it does not
 * understand fails the request (an `HPE_` code, as node:http would say) and drops the connection.
 *
 * Like {@link deliveryWorkerMain} it runs from its source text: nothing outside its body may be referred to;
 * `load` gives it Node's modules.
 */
export function lightHttpClient(
  load: (id: string) => unknown,
  maxSockets: number,
  maxDrainBytes: number,
): LightHttpClient {
  interface NetSocket {
    setNoDelay(on: boolean): void;
    cork(): void;
    uncork(): void;
    write(data: string | Uint8Array, encoding?: string): void;
    destroy(): void;
    on(event: string, fn: (arg?: unknown) => void): void;
  }
  const net = load('node:net') as { connect(options: { host: string; port: number }): NetSocket };
  const MAX_HEAD = 16 * 1024;

  interface Job {
    target: { hostname: string; port: number; path: string };
    head: string;
    body: Uint8Array;
    done: (outcome: PostOutcome) => void;
    conn: Conn | undefined;
    cancelled: boolean;
  }
  interface Pool {
    open: number;
    idle: Conn[];
    waiting: Job[];
  }
  interface Conn {
    socket: NetSocket;
    pool: Pool;
    job: Job | undefined;
    /** Bytes of the answer not parsed yet (the head, then chunk framing). */
    buf: Buffer | undefined;
    status: number;
    /** 0 head, 1 fixed-length body, 2 chunk size line, 3 chunk data, 4 chunk CRLF, 5 trailers, 6 until close. */
    state: number;
    left: number;
    seen: number;
    reusable: boolean;
    dead: boolean;
  }
  const pools = new Map<string, Pool>();

  const finish = (c: Conn, outcome: PostOutcome, keep: boolean) => {
    const job = c.job;
    c.job = undefined;
    c.buf = undefined;
    if (keep && !c.dead) {
      const next = c.pool.waiting.shift();
      if (next) start(c, next);
      else c.pool.idle.push(c);
    } else drop(c);
    if (job && !job.cancelled) job.done(outcome);
  };

  const drop = (c: Conn) => {
    if (c.dead) return;
    c.dead = true;
    c.pool.open--;
    const i = c.pool.idle.indexOf(c);
    if (i >= 0) c.pool.idle.splice(i, 1);
    c.socket.destroy();
    // A slot is free: the next waiting request gets a fresh connection.
    const next = c.pool.waiting.shift();
    if (next) connect(c.pool, next);
  };

  const fail = (c: Conn, code: string | undefined, message: string) => {
    if (!c.job) return drop(c);
    if (c.status > 0) finish(c, { status: c.status }, false);
    else finish(c, { error: { ...(code ? { code } : {}), message } }, false);
  };

  const start = (c: Conn, job: Job) => {
    job.conn = c;
    c.job = job;
    c.status = 0;
    c.state = 0;
    c.seen = 0;
    c.reusable = true;
    c.buf = undefined;
    c.socket.cork();
    c.socket.write(job.head, 'latin1');
    c.socket.write(job.body);
    c.socket.uncork();
  };

  /** Parses what arrived; returns when it needs more bytes or the request has been settled. */
  const onData = (c: Conn, chunk: Buffer) => {
    if (!c.job) return drop(c); // bytes nobody asked for: the connection cannot be trusted any more
    const buf = c.buf ? Buffer.concat([c.buf, chunk]) : chunk;
    c.buf = undefined;
    let at = 0;
    while (c.job) {
      if (c.state === 0) {
        const end = buf.indexOf('\r\n\r\n', at, 'latin1');
        if (end < 0) {
          if (buf.length - at > MAX_HEAD)
            return fail(c, 'HPE_HEADER_OVERFLOW', 'Parse Error: Header overflow');
          c.buf = buf.subarray(at);
          return;
        }
        const head = buf.toString('latin1', at, end);
        at = end + 4;
        const m = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: [^\r\n]*)?\r?(?:\n|$)/.exec(head);
        if (!m) return fail(c, 'HPE_INVALID_CONSTANT', 'Parse Error: Expected HTTP/');
        const status = Number(m[2]);
        if (status >= 100 && status < 200 && status !== 101) continue; // 100 Continue and friends
        let length = -1;
        let chunked = false;
        let close = m[1] === '0';
        for (const line of head.split('\r\n').slice(1)) {
          const colon = line.indexOf(':');
          if (colon <= 0) return fail(c, 'HPE_INVALID_HEADER_TOKEN', 'Parse Error: Invalid header');
          const name = line.slice(0, colon).trim().toLowerCase();
          const value = line
            .slice(colon + 1)
            .trim()
            .toLowerCase();
          if (name === 'content-length') {
            if (!/^\d{1,15}$/.test(value) || (length >= 0 && Number(value) !== length))
              return fail(c, 'HPE_INVALID_CONTENT_LENGTH', 'Parse Error: Invalid content-length');
            length = Number(value);
          } else if (name === 'transfer-encoding') chunked = /(?:^|,)\s*chunked\s*$/.test(value);
          else if (name === 'connection')
            close = /(?:^|,)\s*close\s*(?:,|$)/.test(value) || (close && !/keep-alive/.test(value));
        }
        // Only a head that parsed whole counts as an answer: before this, a failure is a parse error, not a status.
        c.status = status;
        c.reusable = !close;
        if (status === 101) return finish(c, { status }, false);
        if (status === 204 || status === 304 || (!chunked && length === 0)) {
          if (at < buf.length) c.reusable = false; // more bytes than the answer: do not reuse
          return finish(c, { status }, c.reusable);
        }
        if (chunked) c.state = 2;
        else if (length > 0) {
          c.state = 1;
          c.left = length;
        } else {
          c.state = 6;
          c.reusable = false;
        }
        continue;
      }
      // Body states: count what is read, give up past the drain limit.
      const avail = buf.length - at;
      if (c.state === 1 || c.state === 6) {
        const take = c.state === 1 ? Math.min(avail, c.left) : avail;
        c.seen += take;
        at += take;
        if (c.seen > maxDrainBytes) return finish(c, { status: c.status }, false);
        if (c.state === 6) return;
        c.left -= take;
        if (c.left > 0) return;
        return finish(c, { status: c.status }, c.reusable && at === buf.length);
      }
      if (c.state === 3) {
        const take = Math.min(avail, c.left);
        c.seen += take;
        at += take;
        c.left -= take;
        if (c.seen > maxDrainBytes) return finish(c, { status: c.status }, false);
        if (c.left > 0) return;
        c.state = 4;
        continue;
      }
      // States 2, 4 and 5 read whole lines.
      const eol = buf.indexOf('\r\n', at, 'latin1');
      if (eol < 0) {
        if (avail > MAX_HEAD)
          return fail(c, 'HPE_CHUNK_EXTENSIONS_OVERFLOW', 'Parse Error: Chunk line overflow');
        c.buf = buf.subarray(at);
        return;
      }
      const line = buf.toString('latin1', at, eol);
      at = eol + 2;
      if (c.state === 2) {
        const size = /^([0-9a-fA-F]{1,8})(?:;.*)?$/.exec(line.trim());
        if (!size) return fail(c, 'HPE_INVALID_CHUNK_SIZE', 'Parse Error: Invalid character in chunk size');
        c.left = Number.parseInt(size[1]!, 16);
        c.state = c.left === 0 ? 5 : 3;
      } else if (c.state === 4) {
        if (line !== '') return fail(c, 'HPE_STRICT', 'Parse Error: Expected CRLF after chunk');
        c.state = 2;
      } else if (line === '') return finish(c, { status: c.status }, c.reusable && at === buf.length);
    }
  };

  const connect = (pool: Pool, job: Job) => {
    pool.open++;
    const socket = net.connect({ host: job.target.hostname, port: job.target.port });
    socket.setNoDelay(true);
    const c: Conn = {
      socket,
      pool,
      job: undefined,
      buf: undefined,
      status: 0,
      state: 0,
      left: 0,
      seen: 0,
      reusable: false,
      dead: false,
    };
    socket.on('data', (chunk) => onData(c, chunk as Buffer));
    socket.on('error', (err) => {
      const e = err as { code?: string; message?: string };
      fail(c, e.code, e.message ?? 'socket error');
    });
    // The receiver closed: an answer read until close is complete; otherwise the request failed.
    socket.on('end', () =>
      c.state === 6 ? finish(c, { status: c.status }, false) : fail(c, 'ECONNRESET', 'socket hang up'),
    );
    socket.on('close', () => (c.job ? fail(c, 'ECONNRESET', 'socket hang up') : drop(c)));
    start(c, job);
  };

  return {
    post(target, headers, body, done) {
      const key = `${target.hostname}|${target.port}`;
      let pool = pools.get(key);
      if (!pool) {
        pool = { open: 0, idle: [], waiting: [] };
        pools.set(key, pool);
      }
      // Exactly node:http's request head for these headers, so receivers see the same bytes from either client.
      const host = target.hostname.includes(':') ? `[${target.hostname}]` : target.hostname;
      let head = `POST ${target.path} HTTP/1.1\r\n`;
      for (const name in headers) head += `${name}: ${headers[name]}\r\n`;
      head += `Host: ${target.port === 80 ? host : `${host}:${target.port}`}\r\nConnection: keep-alive\r\n\r\n`;
      const job: Job = { target, head, body, done, conn: undefined, cancelled: false };
      const idle = pool.idle.pop();
      if (idle) start(idle, job);
      else if (pool.open < maxSockets) connect(pool, job);
      else pool.waiting.push(job);
      const p = pool;
      return () => {
        job.cancelled = true;
        const c = job.conn;
        if (c && c.job === job) {
          c.job = undefined;
          drop(c);
        } else {
          const i = p.waiting.indexOf(job);
          if (i >= 0) p.waiting.splice(i, 1);
        }
      };
    },
  };
}
