import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PspClient } from '../../src/index.js';

// Deno without --allow-env throws on every environment read. A client given all its options must construct
// anyway: the PSP_* variables are only a fallback.

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('a runtime that refuses environment reads', () => {
  it('constructs a client from its options', () => {
    const env = new Proxy(
      {},
      {
        get() {
          throw new Error('NotCapable: Requires env access');
        },
      },
    );
    vi.stubGlobal('process', { ...process, env });
    const client = new PspClient({ apiKey: 'sk_test_abcdef_envdenied', baseUrl: 'http://psp.test' });
    expect(client.mode).toBe('test');
  });

  const deno = join(process.cwd(), 'test/runtimes/node_modules/.bin/deno');
  const built = join(process.cwd(), 'dist/index.js');
  // Deno comes from test/runtimes and dist from the build, both made by npm test's first stage; a bare
  // `vitest run` without them has nothing to run here.
  it.skipIf(!existsSync(deno) || !existsSync(built))(
    'constructs under Deno run without --allow-env',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'psp-env-denied-'));
      const file = join(dir, 'main.mjs');
      writeFileSync(
        file,
        `import { PspClient } from ${JSON.stringify(pathToFileURL(built).href)};\n` +
          "const c = new PspClient({ apiKey: 'sk_test_abcdef_envdenied', baseUrl: 'http://psp.test' });\n" +
          'console.log(c.mode);\n',
      );
      try {
        const { stdout } = await promisify(execFile)(deno, ['run', '--no-prompt', '--allow-read', file], {
          env: { ...process.env, NO_COLOR: '1' },
        });
        expect(stdout.trim()).toBe('test');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
