// In reference mode the reference delivers webhooks to an endpoint of this server's own (INBOX_URL) as well as to
// any the developer adds: the agent sees what a receiver gets (headers and raw body, to verify) without a listener.
// Deliveries to any other URL go out through `fetch` as usual.
import { Numbered } from './numbered.js';

/** The inbox endpoint's URL: `.invalid` never resolves, so nothing could reach it but this server's fetch. */
export const INBOX_URL = 'https://inbox.psp-mcp.invalid/webhooks';
export const MAX_INBOX = 100;

/** One webhook as the inbox received it. */
export interface ReceivedWebhook {
  /** The order of arrival, from 1. */
  seq: number;
  received_at: string;
  /** The headers a receiver verifies with (X-PSP-Signature, X-PSP-Timestamp, X-PSP-Event-Id, Content-Type). */
  headers: Record<string, string>;
  /** The body exactly as sent: pass it with the headers to `webhooks_verify`. */
  body: string;
}

const KEPT_HEADERS = ['content-type', 'user-agent', 'x-psp-event-id', 'x-psp-signature', 'x-psp-timestamp'];

export class Inbox {
  readonly #items = new Numbered<Omit<ReceivedWebhook, 'seq'>>(MAX_INBOX);

  /** `inner` for every URL but the inbox's, which answers 200 and keeps the delivery. */
  fetch(inner: typeof fetch): typeof fetch {
    return async (input, init) => {
      const request = new Request(input, init);
      if (request.url !== INBOX_URL) return inner(request);
      const headers: Record<string, string> = {};
      for (const name of KEPT_HEADERS) {
        const value = request.headers.get(name);
        if (value !== null) headers[name] = value;
      }
      this.#items.push({ received_at: new Date().toISOString(), headers, body: await request.text() });
      return new Response(null, { status: 204 });
    };
  }

  /**
   * The webhooks received after `cursor`, oldest first, waiting up to `waitMs` for the first one: a delivery is
   * sent after the change that caused it has been answered.
   */
  async since(cursor: number, waitMs = 0): Promise<ReceivedWebhook[]> {
    await this.#items.wait(cursor, waitMs);
    return this.#items.after(cursor);
  }
}
