// `--state <file>` of the CLI: Node-only, so only cli.ts imports it (the rest of src/reference/state is web standard).
import { open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
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
