/** What the stream reader hears from {@link sseParser}. */
export interface SseHandlers {
  /** A dispatched event: its `event:` name (undefined when none or empty) and its joined `data:` lines. */
  event(type: string | undefined, data: string): void;
  /** A comment line, without the colon and one optional space. */
  comment(text: string): void;
  /** A `retry:` field of digits only, in milliseconds. */
  retry(ms: number): void;
  /** The unfinished line plus the unfinished event's data outgrew the limit; the parser then ignores all input. */
  overflow(): void;
}

/**
 * The server-sent events line parser (WHATWG HTML 9.2.6) the event stream needs, in place of eventsource-parser
 * (1 KB gzip of the client bundle for fields and errors the stream ignores). It hears what eventsource-parser
 * 3.1's `createParser` reported to the stream, call for call and feed for feed: a first chunk's (mis-decoded) BOM
 * is dropped, lines end at CRLF, CR or LF (a CR that ends a chunk waits for the next), an unfinished line is
 * parsed only once a chunk brings a line break, `id:` and unknown fields are ignored, and the limit is checked
 * after each chunk. test/event-stream/sse-parser.test.ts compares the two on random streams cut at random points.
 *
 * @example
 * const feed = sseParser(1 << 20, { event: (type, data) => {}, comment() {}, retry() {}, overflow() {} });
 * feed('event: payment.succeeded\ndata: {}\n\n');
 */
export function sseParser(maxBuffer: number, on: SseHandlers): (chunk: string) => void {
  // The unfinished line, the unfinished event's data (undefined: no data line yet) and name; `first`: before
  // the first chunk; `dead`: past the limit.
  let rest = '';
  let data: string | undefined;
  let type: string | undefined;
  let first = true;
  let dead = false;

  const line = (l: string) => {
    if (l === '') {
      if (data !== undefined) on.event(type, data);
      data = type = undefined;
      return;
    }
    const colon = l.indexOf(':');
    if (colon === 0) return on.comment(l.slice(l[1] === ' ' ? 2 : 1));
    const field = colon < 0 ? l : l.slice(0, colon);
    const value = colon < 0 ? '' : l.slice(colon + (l[colon + 1] === ' ' ? 2 : 1));
    if (field === 'data') data = data === undefined ? value : `${data}\n${value}`;
    else if (field === 'event') type = value || undefined;
    else if (field === 'retry' && /^\d+$/.test(value)) on.retry(Number.parseInt(value, 10));
  };

  return (chunk) => {
    if (dead) return;
    if (first) {
      first = false;
      // UTF-8's BOM read as three Latin-1 characters (TextDecoder drops a real one), as eventsource-parser does.
      if (chunk.startsWith('\xef\xbb\xbf')) chunk = chunk.slice(3);
    }
    let text = rest + chunk;
    // A chunk without a line break only adds to the unfinished line.
    if (!rest || /[\r\n]/.test(chunk)) {
      let at = 0;
      for (;;) {
        const cr = text.indexOf('\r', at);
        const lf = text.indexOf('\n', at);
        const end = cr < 0 ? lf : lf < 0 ? (cr === text.length - 1 ? -1 : cr) : Math.min(cr, lf);
        if (end < 0) break;
        line(text.slice(at, end));
        at = end + 1;
        if (text[end] === '\r' && text[at] === '\n') at++;
      }
      text = text.slice(at);
    }
    rest = text;
    if (rest.length + (data ?? '').length > maxBuffer) {
      dead = true;
      on.overflow();
    }
  };
}
