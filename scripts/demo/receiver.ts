/**
 * The merchant's webhook endpoint for the demo: a node:http server on 127.0.0.1 that hands each POST's raw body
 * and headers to a handler. The raw bytes matter: signatures are over the exact body, so it is never re-serialised.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export type WebhookHandler = (rawBody: string, headers: IncomingHttpHeaders) => number | Promise<number>;

export interface Receiver {
  /** The URL to register as a webhook endpoint. */
  url: string;
  close(): Promise<void>;
}

export async function startReceiver(handler: WebhookHandler, path = '/webhooks/psp'): Promise<Receiver> {
  const server = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== path) {
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', () => res.destroy()); // the sender went away mid-body: nothing to answer
    req.on('end', () => {
      Promise.resolve()
        .then(() => handler(Buffer.concat(chunks).toString('utf8'), req.headers))
        .then(
          (status) => res.writeHead(status).end(),
          () => res.writeHead(500).end(),
        );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Items that arrive over time, with a way to wait for one that matches. */
export class Inbox<T> {
  readonly items: T[] = [];
  #waiters: Array<{ match: (item: T) => boolean; resolve: (item: T) => void }> = [];

  push(item: T): void {
    this.items.push(item);
    this.#waiters = this.#waiters.filter((w) => {
      if (!w.match(item)) return true;
      w.resolve(item);
      return false;
    });
  }

  /** Resolves with the first item (already here or still to come) that matches; rejects after `timeoutMs`. */
  waitFor(match: (item: T) => boolean, timeoutMs: number, what: string, signal?: AbortSignal): Promise<T> {
    const found = this.items.find(match);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise<T>((resolve, reject) => {
      const stop = (err: Error) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        reject(err);
      };
      const onAbort = () => stop(new Error(`interrupted while waiting for ${what}`));
      const timer = setTimeout(
        () => stop(new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`)),
        timeoutMs,
      );
      const waiter = {
        match,
        resolve: (item: T) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(item);
        },
      };
      this.#waiters.push(waiter);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
