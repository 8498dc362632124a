import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readStateFile } from '../../../src/reference/state/file.js';

// A writer killed between creating its temp file and the rename (kill -9 mid-autosave) leaves
// `.<name>.<pid>.<ms>.tmp` beside the state file; every such crash would add one. The next start removes those
// whose writer is gone, and leaves a live writer's alone.

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('a start from --state removes the temp files of dead writers', () => {
  it('removes a dead writer temp file, keeps a live one and other files, with or without a state file', async () => {
    for (const withState of [false, true]) {
      const dir = await mkdtemp(join(tmpdir(), 'psp-temps-'));
      dirs.push(dir);
      const file = join(dir, 'state.json');
      if (withState) await writeFile(file, '{}');
      const dead = `.state.json.${2 ** 31 - 1}.1764000000000.tmp`; // no process has this id
      const live = `.state.json.${process.ppid}.1764000000000.tmp`; // the runner's parent: alive
      const other = '.other.json.1.1.tmp';
      for (const name of [dead, live, other]) await writeFile(join(dir, name), '{"half": ');
      await readStateFile(file).catch(() => undefined); // '{}' is no snapshot: refused, after the cleanup
      const left = await readdir(dir);
      expect(left).not.toContain(dead);
      expect(left).toContain(live);
      expect(left).toContain(other);
    }
  });
});
