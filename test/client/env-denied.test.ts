import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PspClient, PspValidationError } from '../../src/index.js';

// Deno without --allow-env throws on every environment read. A client given all its options must construct
// anyway: the PSP_* variables are only a fallback.

afterEach(() => {
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
});

/** An environment that throws on every read as Deno's does (its error class is named NotCapable). */
function denyEnv(readable: Record<string, string> = {}) {
  class NotCapable extends Error {
    override name = 'NotCapable';
  }
  const env = new Proxy(readable, {
    get(target, name) {
      if (typeof name === 'string' && name in target) return target[name];
      throw new NotCapable(`Requires env access to "${String(name)}", run again with the --allow-env flag`);
    },
  });
  vi.stubGlobal('process', { ...process, env });
}

/** The message of the PspValidationError that `new PspClient(options)` throws. */
function refusal(options: ConstructorParameters<typeof PspClient>[0]): string {
  try {
    new PspClient(options);
  } catch (err) {
    expect(err).toBeInstanceOf(PspValidationError);
    return (err as Error).message;
  }
  throw new Error('the client was constructed');
}

describe('a runtime that refuses environment reads', () => {
  it('constructs a client from its options', () => {
    denyEnv();
    const client = new PspClient({ apiKey: 'sk_test_abcdef_envdenied', baseUrl: 'http://psp.test' });
    expect(client.mode).toBe('test');
  });

  it('a variable it could not read: the error says so, why, and what to do, not "is required"', () => {
    // Issue 26: Deno without --allow-env said `apiKey: is required (or set PSP_API_KEY)` with the variable set.
    denyEnv();
    const both = refusal({});
    expect(both).toContain(
      'apiKey: PSP_API_KEY could not be read: the environment is not readable (NotCapable: Requires env access to "PSP_API_KEY", run again with the --allow-env flag). Deno: run with --allow-env=PSP_API_KEY, or pass apiKey',
    );
    expect(both).toContain(
      'baseUrl: PSP_BASE_URL could not be read: the environment is not readable (NotCapable',
    );
    expect(both).not.toContain('is required');
    // Each variable on its own: one readable (and unset) is simply required, the refused one says why.
    denyEnv({ PSP_BASE_URL: '' });
    const one = refusal({});
    expect(one).toContain('apiKey: PSP_API_KEY could not be read');
    expect(one).toContain('baseUrl: is required (or set PSP_BASE_URL)');
    // A readable environment without the variable: as before.
    vi.unstubAllGlobals();
    vi.stubEnv('PSP_API_KEY', '');
    expect(refusal({ baseUrl: 'http://psp.test' })).toContain('apiKey: is required (or set PSP_API_KEY)');
  });

  const deno = join(process.cwd(), 'test/support/runtimes/node_modules/.bin/deno');
  const built = join(process.cwd(), 'dist/index.js');
  // Deno comes from test/support/runtimes and dist from the build, both made by npm test's first stage; a bare
  // `vitest run` without them has nothing to run here.
  it.skipIf(!existsSync(deno) || !existsSync(built))(
    'constructs under Deno run without --allow-env, and says why a variable it needed could not be read',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'psp-env-denied-'));
      const file = join(dir, 'main.mjs');
      writeFileSync(
        file,
        `import { PspClient } from ${JSON.stringify(pathToFileURL(built).href)};\n` +
          "const c = new PspClient({ apiKey: 'sk_test_abcdef_envdenied', baseUrl: 'http://psp.test' });\n" +
          'console.log(c.mode);\n' +
          "try { new PspClient({ baseUrl: 'http://psp.test' }); } catch (err) { console.log(err.message); }\n",
      );
      try {
        const { stdout } = await promisify(execFile)(deno, ['run', '--no-prompt', '--allow-read', file], {
          // The variable is set: only the permission is missing.
          env: { ...process.env, NO_COLOR: '1', PSP_API_KEY: 'sk_test_abcdef_envdenied' },
        });
        const [mode, message] = stdout.trim().split('\n');
        expect(mode).toBe('test');
        expect(message).toMatch(
          /^Invalid client options: apiKey: PSP_API_KEY could not be read: the environment is not readable \((NotCapable|PermissionDenied): .*\)\. Deno: run with --allow-env=PSP_API_KEY, or pass apiKey$/,
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
