import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { readStateFile, StateFileError } from '../../../src/reference/state/file.js';
import { MAX_RESTORE_BYTES, MAX_STATE_FILE_BYTES } from '../../../src/reference/state/limits.js';
import { BASE, setup } from '../helpers.js';

describe('the restore size cap (MAX_RESTORE_BYTES)', () => {
  test('a restore body over the cap is refused before it is read, and changes nothing', async () => {
    const { ref } = setup();
    const before = JSON.stringify(await ref.control.snapshot());
    const body = new Uint8Array(MAX_RESTORE_BYTES + 1).fill(0x20);
    const res = await ref.fetch(
      new Request(`${BASE}/_simulator/restore`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ref.admin_token}`, 'content-type': 'application/json' },
        body,
      }),
    );
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain(
      `larger than ${MAX_RESTORE_BYTES} bytes`,
    );
    expect(JSON.stringify(await ref.control.snapshot())).toBe(before);
    await ref.close();
  });

  test('a --state file over its own bound is refused before it is read, naming the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'psp-cap-'));
    try {
      const file = join(dir, 'huge.json');
      await writeFile(file, '');
      await truncate(file, MAX_STATE_FILE_BYTES + 1); // sparse: nothing is written
      const error = await readStateFile(file).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StateFileError);
      expect((error as Error).message).toContain(file);
      expect((error as Error).message).toContain(`${MAX_STATE_FILE_BYTES / 2 ** 20} MiB`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('a --state file larger than a restore body still loads: the service wrote it, and a start serves nothing yet', async () => {
    const { ref } = setup();
    const doc = await ref.control.snapshot();
    await ref.close();
    const dir = await mkdtemp(join(tmpdir(), 'psp-cap-'));
    try {
      const file = join(dir, 'large.json');
      // A state as large as a busy service's: past the restore cap (JSON allows the trailing whitespace).
      await writeFile(file, JSON.stringify(doc) + ' '.repeat(MAX_RESTORE_BYTES + 1));
      expect(await readStateFile(file)).toEqual(doc);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
