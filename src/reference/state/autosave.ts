// `--state <file>` between signals: Node-only (through file.ts), so only cli.ts imports it.
import { type FailedSave, type StateLock, writeStateFile } from './file.js';
import type { StateSaving } from './index.js';
import type { Snapshot } from './schema.js';

/** What {@link autosave} answers: `changed` after each change, `save` for the last write, `status` for health. */
export interface Autosave {
  /** Tells the writer the state changed: a write follows within `delayMs` (coalesced with other changes). */
  changed(): void;
  /** Stops the timer and waits for a write in flight, so the caller's own last write cannot race it. */
  close(): Promise<void>;
  /** Closes, then writes the state now: the last write, at a signal. Rejects when it fails (recorded as any other). */
  save(): Promise<void>;
  /** Whether the state is saved, for `GET /_simulator/health`. */
  status(): StateSaving;
}

/** The seams of {@link autosave}: the write and the clock (tests), and the lock that records a failed save. */
export interface AutosaveSeams {
  /** Writes one snapshot. Default {@link writeStateFile}. */
  write?: ((path: string, doc: Snapshot) => Promise<void>) | undefined;
  /** The wall clock, for the times `status()` and the log report. Default `() => new Date()`. */
  now?: (() => Date) | undefined;
  /** Where a failed save is recorded for the next start to report (`--state`'s lock). Default: nowhere. */
  lock?: Pick<StateLock, 'record'> | undefined;
}

/**
 * Writes the state to `path` at most `delayMs` after a change, so that a `kill -9`, an OOM kill or a power cut
 * loses at most about that much work. Changes that come while a write is waiting or running are coalesced into
 * the next write; each write is atomic ({@link writeStateFile}: temp file, sync, rename). The timer never keeps the
 * process alive. A failed write (a full disk, a directory gone read-only) never stops the service: it is logged
 * each time, with when the state was last saved, recorded in the lock so the next start says so, shown by
 * `status()`, and retried at the next change.
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
  { write = writeStateFile, now = () => new Date(), lock }: AutosaveSeams = {},
): Autosave {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let writing: Promise<void> | undefined;
  let dirty = false;
  let closed = false;
  let lastSavedAt: string | null = null;
  let failed: FailedSave | undefined;

  // The snapshot is taken in one synchronous step, so the file holds one consistent state.
  const attempt = () =>
    snapshot()
      .then((doc) => write(path, doc))
      .then(
        () => {
          lastSavedAt = now().toISOString();
          failed = undefined;
          lock?.record(undefined);
        },
        (error: unknown) => {
          failed = { at: now().toISOString(), message: (error as Error).message };
          lock?.record(failed);
          log(
            `psp-reference: cannot write the state to ${path}: ${failed.message} (the file holds the state of ${lastSavedAt ?? 'the start'}; retried at the next change)`,
          );
          throw error;
        },
      );
  const run = () => {
    timer = undefined;
    dirty = false;
    writing = attempt()
      .catch(() => {})
      .finally(() => {
        writing = undefined;
        if (dirty) arm();
      });
  };
  const arm = () => {
    if (closed || timer !== undefined || writing !== undefined) return;
    timer = setTimeout(run, delayMs);
    timer.unref();
  };
  const close = async () => {
    closed = true;
    clearTimeout(timer);
    timer = undefined;
    await writing;
  };
  return {
    changed() {
      dirty = true;
      arm();
    },
    close,
    async save() {
      await close();
      await attempt();
    },
    status: () => ({
      file: path,
      saved: failed === undefined,
      last_saved_at: lastSavedAt,
      last_error: failed ? { ...failed } : null,
    }),
  };
}
