import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { tsc, tsc6 } from '../support/tsc.js';

const consumer = inject('consumerDir');

// A consumer with no DOM lib and full library checking: the published types must stand on their own, with
// only @types/node beside them. psp-sdk/reference/msw hands out msw's types, and msw's own .d.ts files need the
// DOM lib, so that entry is checked with it (still skipLibCheck false).
// The declarations are emitted by TypeScript 7 (scripts/build-dist.mjs), which a new app installs today; most apps
// still run TypeScript 6 or 5, so one config is also checked with 6 (5.9 was checked by hand: the same result).
const configs = [
  ['node16', 'moduleResolution node16 (ESM and CJS sides), no DOM', tsc],
  ['bundler', 'moduleResolution bundler, no DOM', tsc],
  // ESM side only: msw 2.15's own CommonJS .d.ts files import the ESM-only rettime (TS1479 under full checking).
  ['msw', 'psp-sdk/reference/msw, node16, with the DOM lib msw needs', tsc],
  ['node16', 'moduleResolution node16 (ESM and CJS sides), no DOM, TypeScript 6', tsc6],
] as const;

describe.concurrent('a consumer project type-checks against the published types (skipLibCheck false, lib ES2022)', () => {
  for (const [config, title, compiler] of configs) {
    it(title, async () => {
      const result = await promisify(execFile)(
        process.execPath,
        [compiler, '-p', join(consumer, 'types', `tsconfig.${config}.json`), '--pretty', 'false'],
        { cwd: consumer },
      ).then(
        () => '',
        (e: { stdout?: string; stderr?: string }) => `${e.stdout ?? ''}${e.stderr ?? ''}` || String(e),
      );
      expect(result).toBe('');
      // Full library checking of @types/node, msw and hono takes ~10 s of CPU per config; generous for a busy machine.
    }, 180_000);
  }
});
