import type { ServerResponse } from 'node:http';
import { setImmediate } from 'node:timers';

/**
 * The answers of one event-loop turn, written together once the turn's I/O callbacks have run (node's check
 * phase). Why: over loopback each answer's write wakes the client, and on a virtual machine that wake-up costs
 * more than the answer itself; written back to back, one wake-up serves many, and a create under load costs
 * about a third less (bench/analysis.md). An answer waits at most for the rest of its turn, never for a timer.
 * `setImmediate` comes from node:timers, so a test's fake timers never hold answers back.
 */
let queue: Array<ServerResponse | number | Record<string, string> | string> = [];

function flush(): void {
  const due = queue;
  queue = [];
  for (let i = 0; i < due.length; i += 4) {
    const outgoing = due[i] as ServerResponse;
    try {
      outgoing.writeHead(due[i + 1] as number, due[i + 2] as Record<string, string>);
      outgoing.end(due[i + 3] as string);
    } catch (error) {
      // A header node refuses must not cost the other answers of the turn: this one's connection ends.
      outgoing.destroy(error as Error);
    }
  }
}

/** Writes status, headers and body on `outgoing` with the rest of this turn's answers. */
export function writeAfterTurn(
  outgoing: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: string,
): void {
  if (queue.length === 0) setImmediate(flush);
  queue.push(outgoing, status, headers, body);
}
