import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Default of `ListenOptions`' bound on unanswered requests per connection (see {@link onePipelineAtATime}). */
export const MAX_UNANSWERED_PER_SOCKET = 4;

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

interface Line {
  /** Requests handed to the listener whose answers have not left for the socket yet. */
  running: number;
  /** Requests node has parsed past the bound, in arrival order, not yet handed to the listener. */
  waiting: Array<[IncomingMessage, ServerResponse]>;
  /** This wrapper stopped reading the socket (and resumes it; a pause of node's own is node's to end). */
  paused: boolean;
}

/**
 * Wraps a request listener so that at most `max` requests of one connection are being answered at once. HTTP/1.1
 * answers a pipelined connection in order, so node keeps every answer behind the first one unsent, whole, in memory;
 * its own guard stops reading only once an answer has been written, and an async handler writes after node has
 * parsed the whole chunk (2,000 pipelined `GET /openapi.json` in one 76 KiB chunk held 150 MiB of answers). Past the
 * bound a request waits, unhandled, and the socket stops being read until the connection's answers have left
 * (`finish`: handed to the socket, which a client that does not read stops); then the next one starts, in order.
 * What waits is bounded by what node had already read, one chunk, and holds no answer.
 *
 * @example server.on('request', onePipelineAtATime(listener, 4));
 */
export function onePipelineAtATime(listener: Listener, max: number = MAX_UNANSWERED_PER_SOCKET): Listener {
  const lines = new WeakMap<Socket, Line>();
  const start = (line: Line, socket: Socket, req: IncomingMessage, res: ServerResponse) => {
    line.running += 1;
    let done = false;
    const leave = () => {
      if (done) return;
      done = true;
      line.running -= 1;
      const next = line.waiting.shift();
      if (next) start(line, socket, ...next);
      if (line.waiting.length === 0 && line.paused) {
        line.paused = false;
        socket.resume();
      }
    };
    res.once('finish', leave);
    res.once('close', leave);
    listener(req, res);
  };
  return (req, res) => {
    const socket = req.socket;
    let line = lines.get(socket);
    if (!line) {
      const created: Line = { running: 0, waiting: [], paused: false };
      line = created;
      lines.set(socket, created);
      // A closed connection gets no answer: what waits is dropped, never run.
      socket.once('close', () => {
        created.waiting.length = 0;
      });
    }
    if (line.running < max && line.waiting.length === 0) return start(line, socket, req, res);
    line.waiting.push([req, res]);
    line.paused = true;
    socket.pause();
  };
}
