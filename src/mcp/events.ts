// The event stream as "events since a cursor". The service's stream (spec 4.8) replays nothing, so the server keeps
// one stream open and numbers what it yields; an agent asks for what came after the number it last saw. Bounded:
// the newest MAX_EVENTS are kept, and a cursor older than them is told that events were dropped.
import type { PspClient } from '../client/client.js';
import type { SseEvent } from '../schemas/events.js';

export const MAX_EVENTS = 500;

/** One event as the tool answers it: the stream's envelope (spec 2.11) and its number. */
export type NumberedEvent = SseEvent & { seq: number };

/** What `since` answers. */
export interface EventsPage {
  events: NumberedEvent[];
  /** Pass as `cursor` next time: the number of the last event seen. */
  cursor: number;
  /** Events after the cursor were dropped (more than MAX_EVENTS came since), or the stream was replaced. */
  dropped: boolean;
  /** Why the stream is not open, when it is not. */
  stream: 'open' | 'replaced' | 'closed';
}

export class EventBuffer {
  readonly #items: NumberedEvent[] = [];
  #seq = 0;
  #state: EventsPage['stream'] = 'closed';
  #stop: (() => void) | undefined;
  #waiters = new Set<() => void>();

  /** Opens the stream once; later calls do nothing. One stream per key (spec 6.2): it replaces another one's. */
  open(client: PspClient, heartbeatTimeoutMs?: number): void {
    if (this.#stop) return;
    const stream = client.events.stream({
      ...(heartbeatTimeoutMs === undefined ? {} : { heartbeatTimeoutMs }),
      onEnd: ({ reason }) => {
        this.#state = reason === 'replaced' ? 'replaced' : 'closed';
      },
    });
    this.#state = 'open';
    this.#stop = () => stream.close();
    void (async () => {
      try {
        for await (const event of stream) this.#push(event);
      } catch {
        // The stream gave up (it reconnects by itself first): the page says it is closed.
      }
      if (this.#state === 'open') this.#state = 'closed';
      this.#wake();
    })();
  }

  get opened(): boolean {
    return this.#stop !== undefined;
  }

  #push(event: SseEvent): void {
    this.#items.push({ seq: ++this.#seq, ...event });
    if (this.#items.length > MAX_EVENTS) this.#items.shift();
    this.#wake();
  }

  #wake(): void {
    for (const wake of this.#waiters) wake();
    this.#waiters.clear();
  }

  /** The events after `cursor`, waiting up to `waitMs` for the first one when there is none yet. */
  async since(asked: number, waitMs: number, limit: number): Promise<EventsPage> {
    // A cursor from before a restart of this server is ahead of the count: it reads from now on.
    const cursor = Math.min(asked, this.#seq);
    if (waitMs > 0 && this.#state === 'open' && this.#seq <= cursor) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.#waiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, waitMs);
        this.#waiters.add(done);
      });
    }
    const after = this.#items.filter((e) => e.seq > cursor);
    const events = after.slice(0, limit);
    const first = this.#items[0]?.seq ?? this.#seq + 1;
    return {
      events,
      cursor: events.at(-1)?.seq ?? cursor,
      dropped: cursor + 1 < first && this.#seq > cursor,
      stream: this.#state,
    };
  }

  close(): void {
    this.#stop?.();
    this.#wake();
  }
}
