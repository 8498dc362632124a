import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  bashBlock,
  merchantProject,
  REFERENCE_CLI,
  runRecipe,
  untilStopped,
} from '../support/merchant-project.js';

// docs/testing.md's recipe for CI in any language, run verbatim with bash in a merchant's project where
// `npx --no-install psp-reference` is this package's bin: it must start the reference, hand its URL and key to the
// merchant's `npm test`, and stop cleanly.

describe('the CI recipe of docs/testing.md', () => {
  // dist comes from npm test's build stage; a bare `vitest run` before any build has no bin to run.
  it.skipIf(!existsSync(REFERENCE_CLI))('runs as written', async () => {
    // What `npm install psp-sdk` gives a merchant: the bin on node_modules/.bin.
    const dir = merchantProject('psp-ci-recipe-', { type: 'module', scripts: { test: 'node check.mjs' } });
    try {
      // The merchant's own test: reads the two variables the recipe exports and calls the service.
      writeFileSync(
        join(dir, 'check.mjs'),
        `const res = await fetch(process.env.PSP_BASE_URL + '/api/v1/public/banks/sbp', {
           headers: { authorization: 'Bearer ' + process.env.PSP_API_KEY } });
         const body = await res.json();
         if (res.status !== 200 || body.items.length !== 30) { console.error(res.status, body); process.exit(1); }
         require('node:fs').writeFileSync('merchant-test-ran', process.env.PSP_BASE_URL);`.replace(
          "require('node:fs')",
          "(await import('node:fs'))",
        ),
      );
      const recipe = bashBlock('testing.md', '# Start the bin itself');
      expect(recipe, 'the CI recipe is in docs/testing.md').toBeDefined();
      const { stdout } = await runRecipe(dir, recipe!, 60_000);
      const baseUrl = readFileSync(join(dir, 'merchant-test-ran'), 'utf8');
      expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(stdout).not.toContain('sk_test_');
      // `kill %1` stopped it: the port no longer answers.
      await untilStopped(baseUrl);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
