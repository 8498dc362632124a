// Issue 42 item 5: docs/contract-testing.md's first block, run verbatim with bash in a merchant's project where the
// bin is this package's: it waits for the reference it starts (no fixed sleep), runs the kit against it, and stops
// it; the verdict is the kit's.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  bashBlock,
  merchantProject,
  REFERENCE_CLI,
  runRecipe,
  untilStopped,
} from '../support/merchant-project.js';

describe("docs/contract-testing.md's first block", () => {
  // dist comes from npm test's build stage; a bare `vitest run` before any build has no bin to run.
  it.skipIf(!existsSync(REFERENCE_CLI))(
    'runs as written: the kit passes against the reference it started, which is then stopped',
    { timeout: 180_000 },
    async () => {
      const dir = merchantProject('psp-contract-recipe-', {});
      try {
        const block = bashBlock('contract-testing.md');
        expect(block, 'docs/contract-testing.md has a bash block').toBeDefined();
        const { stdout } = await runRecipe(dir, block!, 150_000);
        expect(stdout).toMatch(/\d+ passed, 0 failed/);
        expect(readFileSync(join(dir, 'contract.xml'), 'utf8')).toContain(
          '<testsuites name="psp-sdk contract"',
        );
        const facts = JSON.parse(readFileSync(join(dir, 'facts.json'), 'utf8').split('\n')[0]!) as {
          base_url: string;
        };
        // `kill %1` stopped it: the port no longer answers.
        await untilStopped(facts.base_url);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
