import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';

const consumer = inject('consumerDir');
const tsc = new URL('../../node_modules/typescript/bin/tsc', import.meta.url).pathname;

// A consumer with no DOM lib and full library checking: the published types must stand on their own, with
// only @types/node beside them.
describe('a consumer project type-checks against the published types', () => {
  for (const resolution of ['node16', 'bundler']) {
    it(`moduleResolution ${resolution}, skipLibCheck false, lib ES2022`, async () => {
      const result = await promisify(execFile)(
        process.execPath,
        [tsc, '-p', join(consumer, 'types', `tsconfig.${resolution}.json`), '--pretty', 'false'],
        { cwd: consumer },
      ).then(
        () => '',
        (e: { stdout?: string; stderr?: string }) => `${e.stdout ?? ''}${e.stderr ?? ''}` || String(e),
      );
      expect(result).toBe('');
    });
  }
});
