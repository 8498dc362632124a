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
