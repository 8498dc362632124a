import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs build script, without types
import { toCjsDeclarations, writeCjsDeclarations } from '../../scripts/types-cjs.mjs';

/** scripts/types-cjs.mjs: the .d.cts files are the ESM build's .d.ts with relative imports on the .cjs side. */
const work = mkdtempSync(join(tmpdir(), 'psp-sdk-types-cjs-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('types-cjs', () => {
  it('points relative imports and re-exports at the .cjs twins, and leaves packages alone', () => {
    const esm = [
      "import { d as SseEvent } from './events-CnqKlSu6.js';",
      "export { P as Payment } from '../resources-hBCRAJFL.js';",
      "import * as z from 'zod/mini';",
      "import type { Hono } from 'hono';",
      "type T = import('./handle-CEY7y8Qd.js').H;",
      "export * from './webhooks/index.js';",
    ].join('\n');
    expect(toCjsDeclarations(esm)).toBe(
      [
        "import { d as SseEvent } from './events-CnqKlSu6.cjs';",
        "export { P as Payment } from '../resources-hBCRAJFL.cjs';",
        "import * as z from 'zod/mini';",
        "import type { Hono } from 'hono';",
        "type T = import('./handle-CEY7y8Qd.cjs').H;",
        "export * from './webhooks/index.cjs';",
      ].join('\n'),
    );
  });

  it('writes a .d.cts beside every .d.ts, in subfolders too', () => {
    mkdirSync(join(work, 'reference'));
    writeFileSync(join(work, 'index.d.ts'), "export { a } from './chunk-x.js';\n");
    writeFileSync(join(work, 'reference', 'index.d.ts'), "export { b } from '../chunk-x.js';\n");
    writeFileSync(join(work, 'index.js'), 'export const a = 1;\n');
    writeFileSync(join(work, 'index.cjs'), 'exports.a = 1;\n');
    // An ESM-only entry (a .js without a .cjs) gets none.
    writeFileSync(join(work, 'reference', 'cli.d.ts'), 'export {};\n');
    writeFileSync(join(work, 'reference', 'cli.js'), '\n');
    expect(writeCjsDeclarations(work)).toBe(2);
    expect(existsSync(join(work, 'reference', 'cli.d.cts'))).toBe(false);
    expect(readFileSync(join(work, 'index.d.cts'), 'utf8')).toBe("export { a } from './chunk-x.cjs';\n");
    expect(readFileSync(join(work, 'reference', 'index.d.cts'), 'utf8')).toBe(
      "export { b } from '../chunk-x.cjs';\n",
    );
  });
});
