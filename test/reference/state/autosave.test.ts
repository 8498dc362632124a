import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { createReference } from '../../../src/reference/service.js';
import { autosave } from '../../../src/reference/state/autosave.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('autosave (the --state writes between signals)', () => {
  test('coalesces changes into one write after the delay, writes again for changes during a write, none after close', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'psp-autosave-'));
    const file = join(dir, 'state.json');
    const ref = createReference({ clock: 'manual' });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let taken = 0;
    const saver = autosave(
      file,
      async () => {
        taken++;
        return ref.control.snapshot();
      },
      () => {},
      500,
    );
    for (let i = 0; i < 100; i++) saver.changed();
    expect(taken).toBe(0);
    await vi.advanceTimersByTimeAsync(499);
    expect(taken).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(taken).toBe(1);
    saver.changed(); // while the write runs: one more write follows it
    // The write is over when it has armed the next one: the file appears at the rename, a directory sync before
    // that (waiting on the file alone raced the sync on a loaded machine, and the timer was armed too late).
    await vi.waitFor(() => expect(vi.getTimerCount()).toBe(1));
    expect(await readdir(dir)).toEqual(['state.json']);
    await vi.advanceTimersByTimeAsync(500);
    expect(taken).toBe(2);
    await saver.close();
    saver.changed();
    await vi.advanceTimersByTimeAsync(5000);
    expect(taken).toBe(2);
    expect(JSON.parse(await readFile(file, 'utf8')).format).toBe('psp-reference-snapshot');
    await ref.close();
    await rm(dir, { recursive: true, force: true });
  });
});

// Issue 32, F8: on a full disk the creates answered 201 while the file kept an old state, and nothing said so.
describe('autosave: a write that fails', () => {
  test('is reported each time with when the state was last saved, shown by status(), recorded in the lock, and cleared by the next success', async () => {
    const ref = createReference({ clock: 'manual' });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let full = false;
    let wrote = 0;
    const lines: string[] = [];
    const recorded: unknown[] = [];
    let clock = Date.parse('2026-11-27T08:00:00.000Z');
    const saver = autosave(
      '/data/state.json',
      async () => ref.control.snapshot(),
      (l) => lines.push(l),
      500,
      {
        // The disk as the test wants it: full, or not.
        write: async () => {
          if (full)
            throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
          wrote++;
        },
        now: () => new Date(clock),
        lock: { record: (f) => recorded.push(f) },
      },
    );
    expect(saver.status()).toEqual({
      file: '/data/state.json',
      saved: true,
      last_saved_at: null,
      last_error: null,
    });
    saver.changed();
    await vi.advanceTimersByTimeAsync(500);
    expect(wrote).toBe(1);
    expect(saver.status()).toMatchObject({ saved: true, last_saved_at: '2026-11-27T08:00:00.000Z' });

    full = true;
    for (let i = 1; i <= 3; i++) {
      clock += 60_000;
      saver.changed();
      await vi.advanceTimersByTimeAsync(500);
      expect(lines).toHaveLength(i); // each failure, not only the first
    }
    expect(lines[2]).toBe(
      'psp-reference: cannot write the state to /data/state.json: ENOSPC: no space left on device, write (the file holds the state of 2026-11-27T08:00:00.000Z; retried at the next change)',
    );
    const failed = { at: '2026-11-27T08:03:00.000Z', message: 'ENOSPC: no space left on device, write' };
    expect(saver.status()).toEqual({
      file: '/data/state.json',
      saved: false,
      last_saved_at: '2026-11-27T08:00:00.000Z',
      last_error: failed,
    });
    expect(recorded.at(-1)).toEqual(failed);

    // The last write at a stop fails the same way, and says so to its caller.
    await expect(saver.save()).rejects.toThrow('ENOSPC');
    expect(lines).toHaveLength(4);

    full = false;
    clock += 60_000;
    await saver.save();
    expect(saver.status()).toEqual({
      file: '/data/state.json',
      saved: true,
      last_saved_at: '2026-11-27T08:04:00.000Z',
      last_error: null,
    });
    expect(recorded.at(-1)).toBeUndefined();
    await ref.close();
  });
});
