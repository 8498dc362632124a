// `--state <file>` of the CLI: Node-only, so only cli.ts imports it (the rest of src/reference/state is web standard).
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { lstat, open, readdir, readFile, readlink, realpath, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { Faults } from '../faults/index.js';
import { MAX_STATE_FILE_BYTES } from './limits.js';
import { buildState } from './restore.js';
import type { Snapshot } from './schema.js';

/** A state file that exists but is not a snapshot this reference reads: the CLI exits 2 with this message. */
export class StateFileError extends Error {
  override readonly name = 'StateFileError';
}

/**
 * Reads a snapshot document from `path`, checked whole: `undefined` when there is no file (the start is fresh), a
 * {@link StateFileError} naming the file when it cannot be read as a snapshot (never a part of a state).
 *
 * @example
 * const state = await readStateFile('./psp-state.json'); // undefined on the first run
 */
export async function readStateFile(path: string): Promise<unknown> {
  await removeStaleTemps(path);
  let text: string;
  try {
    // A runaway or foreign file is refused before it is read (the bound is far above what a start from the
    // service's own file needs: see MAX_STATE_FILE_BYTES).
    const { size } = await stat(path);
    if (size > MAX_STATE_FILE_BYTES)
      throw new StateFileError(
        `the state file ${path} is ${size} bytes, over the ${MAX_STATE_FILE_BYTES / 2 ** 20} MiB a start reads`,
      );
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (error instanceof StateFileError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new StateFileError(`cannot read the state file ${path} (${code ?? 'unknown error'})`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new StateFileError(`the state file ${path} is not JSON (a truncated or foreign file?)`);
  }
  try {
    // Checked whole, fault rules included (by the faults module's own check, into rules never put in force), so
    // nothing in the file can stop the start later without naming it.
    buildState(doc, new Faults());
  } catch (error) {
    throw new StateFileError(`the state file ${path} is not a snapshot: ${(error as Error).message}`);
  }
  return doc;
}

/** Whether a process with this id runs (EPERM: it does, as another user). */
function alive(pid: number): boolean {
  if (pid === process.pid) return false; // this process has written nothing yet: the file is a dead one's
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the temp files that writers killed mid-write left beside `path` ({@link writeStateFile}'s
 * `.<name>.<pid>.<ms>.tmp`), so crashes do not pile them up; one whose writer still runs is left to it.
 */
async function removeStaleTemps(path: string): Promise<void> {
  const dir = dirname(path);
  const prefix = `.${basename(path)}.`;
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const pid = name.startsWith(prefix)
      ? /^(\d+)\.\d+\.tmp$/.exec(name.slice(prefix.length))?.[1]
      : undefined;
    if (pid !== undefined && !alive(Number(pid))) await rm(join(dir, name), { force: true });
  }
}

/**
 * Writes `doc` to `path` atomically and readable by its owner only (0600): into a new file beside it, synced to
 * disk, then renamed over the old one, so a crash or a failed write leaves the previous file whole.
 *
 * @example
 * await writeStateFile('./psp-state.json', await ref.control.snapshot());
 */
export async function writeStateFile(path: string, doc: Snapshot): Promise<void> {
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
  try {
    const file = await open(tmp, 'wx', 0o600);
    try {
      await file.writeFile(JSON.stringify(doc));
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
  // The rename itself reaches the disk once the directory is synced (not every platform can open one: skip there).
  const handle = await open(dir, 'r').catch(() => undefined);
  await handle?.sync().catch(() => {});
  await handle?.close();
}

/**
 * Where `--state <path>` really is, resolved once at the start: a symlink at the path (or on the way to it) is
 * followed, so every save is written through it to its target instead of replacing the link with a file, and a
 * later change of the working directory or of the link does not move the saves. A path that does not exist yet is
 * its directory's real path and its name; a link to a file not made yet, the link's target.
 *
 * @example
 * const file = await resolveStatePath('./psp-state.json'); // '/home/me/app/psp-state.json'
 */
export async function resolveStatePath(path: string): Promise<string> {
  let at = resolve(path);
  for (let hops = 0; hops < 40; hops++) {
    try {
      return await realpath(at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw stateError(at, error);
    }
    const link = await lstat(at).catch(() => undefined);
    if (!link?.isSymbolicLink()) {
      const dir = await realpath(dirname(at)).catch((error: unknown) => {
        throw stateError(dirname(at), error);
      });
      return join(dir, basename(at));
    }
    at = resolve(dirname(at), await readlink(at));
  }
  throw new StateFileError(`the state file ${path} is a loop of symbolic links`);
}

function stateError(path: string, error: unknown): StateFileError {
  const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
  return new StateFileError(`cannot use the state file ${path} (${code})`);
}

/** A save that failed, as the lock file keeps it for the next start. */
export interface FailedSave {
  /** When it failed (ISO 8601). */
  at: string;
  message: string;
}

/** The lock of a state file, held while a reference uses it: see {@link lockStateFile}. */
export interface StateLock {
  /** The lock file, `<state file>.lock`. */
  readonly path: string;
  /** The previous run's last save, when it failed: that run ended (or was killed) with its state unsaved. */
  readonly previous: FailedSave | undefined;
  /** Records a failed save in the lock (in place: it takes no new disk space), or clears it (`undefined`). */
  record(failed: FailedSave | undefined): void;
  /** Removes the lock, unless a failed save is recorded in it: then it stays for the next start to report. */
  release(): void;
}

// The lock's content is one JSON line padded to a fixed size, so a failed save is recorded by overwriting bytes
// the file already has: on a full disk, where the state file cannot be written, the record still can.
const LOCK_BYTES = 1024;

/**
 * Takes the lock of the state file at `path` (already resolved): `<path>.lock`, created exclusively, holding this
 * process's id. A second reference on the same file finds it and refuses to start ({@link StateFileError}, naming
 * the process); a lock whose process is gone (killed, crashed) is taken over, and what it recorded about its last
 * save is handed on as `previous`. Two starts racing to take over the same dead lock can both win; start one at a
 * time after a crash.
 *
 * @example
 * const lock = lockStateFile(await resolveStatePath('./psp-state.json'));
 * process.on('exit', () => lock.release());
 */
export function lockStateFile(path: string): StateLock {
  const lockPath = `${path}.lock`;
  let previous: FailedSave | undefined;
  let fd: number | undefined;
  for (let attempt = 0; fd === undefined; attempt++) {
    try {
      fd = openSync(lockPath, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0)
        throw stateError(lockPath, error);
      const held = readLock(lockPath);
      if (held.pid !== undefined && alive(held.pid))
        throw new StateFileError(
          `the state file ${path} is in use by another psp-reference (process ${held.pid}): stop it, or give this one another --state file (if no such reference runs, remove ${lockPath})`,
        );
      previous = held.failed;
      rmSync(lockPath, { force: true });
    }
  }
  const handle = fd;
  let failed: FailedSave | undefined;
  const write = () => {
    const line = JSON.stringify({
      pid: process.pid,
      save_failed: failed ? { at: failed.at, message: failed.message.slice(0, 400) } : null,
    });
    writeSync(handle, Buffer.from(line.padEnd(LOCK_BYTES - 1, ' ') + '\n'), 0, LOCK_BYTES, 0);
  };
  write();
  let released = false;
  return {
    path: lockPath,
    previous,
    record(next) {
      if (released || failed === next) return;
      failed = next;
      try {
        write();
      } catch {
        // The record is a courtesy to the next start; the failure itself is already on stderr.
      }
    },
    release() {
      if (released) return;
      released = true;
      closeSync(handle);
      if (!failed) rmSync(lockPath, { force: true });
    },
  };
}

/** What a lock file holds; an unreadable or foreign one holds nothing (its writer died mid-write). */
function readLock(path: string): { pid?: number | undefined; failed?: FailedSave | undefined } {
  try {
    const doc = JSON.parse(readFileSync(path, 'utf8')) as {
      pid?: unknown;
      save_failed?: { at?: unknown; message?: unknown } | null | undefined;
    };
    const pid = Number.isSafeInteger(doc.pid) && (doc.pid as number) > 0 ? (doc.pid as number) : undefined;
    const f = doc.save_failed;
    const failed =
      f && typeof f.at === 'string' && typeof f.message === 'string'
        ? { at: f.at, message: f.message }
        : undefined;
    return { ...(pid === undefined ? {} : { pid }), ...(failed ? { failed } : {}) };
  } catch {
    return {};
  }
}
