// `--state <file>` between signals: Node-only (through file.ts), so only cli.ts imports it.
import { writeStateFile } from './file.js';
import type { Snapshot } from './schema.js';

/** What {@link autosave} answers: `changed` after each change, `close` before the last write. */
export interface Autosave {
  /** Tells the writer the state changed: a write follows within `delayMs` (coalesced with other changes). */
  changed(): void;
  /** Stops the timer and waits for a write in flight, so the caller's own last write cannot race it. */
  close(): Promise<void>;
}

/**
 * Writes the state to `path` at most `delayMs` after a change, so that a `kill -9`, an OOM kill or a power cut
 * loses at most about that much work. Changes that come while a write is waiting or running are coalesced into
 * the next write; each write is atomic ({@link writeStateFile}: temp file, sync, rename). The timer never keeps the
 * process alive. A failed write is logged and retried at the next change; it never stops the service.
 *
 * @example
 * const saver = autosave('./psp-state.json', () => ref.control.snapshot(), log);
 * const ref = await startReference({ onChange: () => saver.changed() });
 */
export function autosave(
  path: string,
  snapshot: () => Promise<Snapshot>,
  log: (line: string) => void,
  delayMs = 500,
): Autosave {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let writing: Promise<void> | undefined;
  let dirty = false;
  let closed = false;

  const write = () => {
    timer = undefined;
    dirty = false;
    // The snapshot is taken in one synchronous step, so the file holds one consistent state.
    writing = snapshot()
      .then((doc) => writeStateFile(path, doc))
      .catch((error: unknown) =>
        log(`psp-reference: cannot write the state to ${path}: ${(error as Error).message}`),
      )
      .finally(() => {
        writing = undefined;
        if (dirty) arm();
      });
  };
  const arm = () => {
    if (closed || timer !== undefined || writing !== undefined) return;
    timer = setTimeout(write, delayMs);
    timer.unref();
  };
  return {
    changed() {
      dirty = true;
      arm();
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      await writing;
    },
  };
}
