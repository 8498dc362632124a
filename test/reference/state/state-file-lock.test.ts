import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createReference } from '../../../src/reference/service.js';
import {
  lockStateFile,
  resolveStatePath,
  StateFileError,
  writeStateFile,
} from '../../../src/reference/state/file.js';

// Issue 32, F8: two references on one file clobbered each other with no warning, a failed save was forgotten by the
// next start, and a symlink at the path was replaced by a file.

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'psp-lock-'));
  dirs.push(dir);
  return dir;
}

/** The id of a process that has ended (a child that ran and exited). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

const lockOf = (pid: number, saveFailed: unknown = null) => JSON.stringify({ pid, save_failed: saveFailed });

describe('the state file lock', () => {
  it('refuses a file whose lock a live process holds, naming it and the lock', async () => {
    const file = join(await tempDir(), 'state.json');
    // The parent of this test process: alive, and not this process.
    await writeFile(`${file}.lock`, lockOf(process.ppid));
    const error = (() => {
      try {
        lockStateFile(file);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(StateFileError);
    expect((error as Error).message).toContain(`in use by another psp-reference (process ${process.ppid})`);
    expect((error as Error).message).toContain(`${file}.lock`);
    // Left as it was: it is the other process's.
    expect(JSON.parse(await readFile(`${file}.lock`, 'utf8')).pid).toBe(process.ppid);
  });

  it("takes over a dead process's lock (0600), hands on the failed save it recorded, and removes it at release", async () => {
    const file = join(await tempDir(), 'state.json');
    const failed = { at: '2026-11-27T07:00:00.000Z', message: 'ENOSPC: no space left on device' };
    await writeFile(`${file}.lock`, lockOf(deadPid(), failed));
    const lock = lockStateFile(file);
    expect(lock.previous).toEqual(failed);
    expect(JSON.parse(await readFile(lock.path, 'utf8'))).toEqual({ pid: process.pid, save_failed: null });
    expect((await stat(lock.path)).mode & 0o777).toBe(0o600);
    lock.release();
    await expect(stat(lock.path)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a failed save is recorded in place and kept at release, for the next start to report; a later success clears it', async () => {
    const file = join(await tempDir(), 'state.json');
    const first = lockStateFile(file);
    const size = (await stat(first.path)).size;
    const failed = { at: '2026-11-27T07:01:00.000Z', message: `EIO: ${'x'.repeat(2000)}` };
    first.record(failed);
    // In place: the file keeps its size (a full disk has no room for more).
    expect((await stat(first.path)).size).toBe(size);
    first.record(undefined);
    expect(JSON.parse(await readFile(first.path, 'utf8')).save_failed).toBeNull();
    first.record(failed);
    first.release();
    const held = JSON.parse(await readFile(`${file}.lock`, 'utf8'));
    expect(held.save_failed.at).toBe(failed.at);
    expect(held.save_failed.message.length).toBeLessThanOrEqual(400);
    // Its process (this one, at the next start's eyes) is gone: taken over, the failure handed on.
    const next = lockStateFile(file);
    expect(next.previous?.at).toBe(failed.at);
    next.release();
  });

  it('an unreadable lock (its writer died mid-write) is taken over', async () => {
    const file = join(await tempDir(), 'state.json');
    await writeFile(`${file}.lock`, '');
    const lock = lockStateFile(file);
    expect(lock.previous).toBeUndefined();
    lock.release();
  });
});

describe('the state file path, resolved once', () => {
  it('follows a symlink to its target, and a save writes through it (the link stays a link)', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'real'));
    const target = join(dir, 'real', 'state.json');
    await writeFile(target, '{}');
    await symlink(target, join(dir, 'link.json'));
    const resolved = await resolveStatePath(join(dir, 'link.json'));
    expect(resolved).toBe(target);
    const ref = createReference({ clock: 'manual' });
    await writeStateFile(resolved, await ref.control.snapshot());
    await ref.close();
    expect((await import('node:fs')).lstatSync(join(dir, 'link.json')).isSymbolicLink()).toBe(true);
    expect(JSON.parse(await readFile(join(dir, 'link.json'), 'utf8')).format).toBe('psp-reference-snapshot');
  });

  it('a link to a file not made yet is its target; a path not made yet is its directory’s real path and its name', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'real'));
    await symlink(join(dir, 'real', 'later.json'), join(dir, 'dangling.json'));
    expect(await resolveStatePath(join(dir, 'dangling.json'))).toBe(join(dir, 'real', 'later.json'));
    await symlink(join(dir, 'real'), join(dir, 'dirlink'));
    expect(await resolveStatePath(join(dir, 'dirlink', 'new.json'))).toBe(join(dir, 'real', 'new.json'));
  });

  it('a loop of links, or a directory that does not exist, is a StateFileError naming the path', async () => {
    const dir = await tempDir();
    await symlink(join(dir, 'b'), join(dir, 'a'));
    await symlink(join(dir, 'a'), join(dir, 'b'));
    await expect(resolveStatePath(join(dir, 'a'))).rejects.toBeInstanceOf(StateFileError);
    const missing = resolveStatePath(join(dir, 'no-such-dir', 'state.json'));
    await expect(missing).rejects.toBeInstanceOf(StateFileError);
    await expect(missing).rejects.toThrow(join(dir, 'no-such-dir'));
  });
});
