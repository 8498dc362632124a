// The event stream as "events since a cursor". The service's stream (spec 4.8) replays nothing, so the server keeps
// one stream open and numbers what it yields; an agent asks for what came after the number it last saw. Bounded:
// the newest MAX_EVENTS are kept, and a cursor older than them is told that events were dropped.
import type { PspClient } from '../psp-client.js';
import type { SseEvent } from '../schemas/events.js';
import { Numbered } from './numbered.js';

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
  readonly #items = new Numbered<SseEvent>(MAX_EVENTS);
  #state: EventsPage['stream'] = 'closed';
  #stop: (() => void) | undefined;

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
        for await (const event of stream) this.#items.push(event);
      } catch {
        // The stream gave up (it reconnects by itself first): the page says it is closed.
      }
      if (this.#state === 'open') this.#state = 'closed';
      this.#items.wake();
    })();
  }

  get opened(): boolean {
    return this.#stop !== undefined;
  }

  /** The events after `cursor`, waiting up to `waitMs` for the first one when there is none yet. */
  async since(asked: number, waitMs: number, limit: number): Promise<EventsPage> {
    // A cursor from before a restart of this server is ahead of the count: it reads from now on.
    const cursor = Math.min(asked, this.#items.last);
    if (this.#state === 'open') await this.#items.wait(cursor, waitMs);
    const events = this.#items.after(cursor).slice(0, limit);
    const first = this.#items.first;
    return {
      events,
      cursor: events.at(-1)?.seq ?? cursor,
      dropped: cursor + 1 < first && this.#items.last > cursor,
      stream: this.#state,
    };
  }

  close(): void {
    this.#stop?.();
    this.#items.wake();
  }
}
