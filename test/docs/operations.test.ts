// Issue 35 item 1: an operation is not added until a guide shows its client method, and the docs that list every
// operation (`context.operation` in docs/observability.md) list the table's (src/schemas/operations.ts). That list is
// made by `npm run build:openapi` between its marks (issue 43 item 3), so it is never written by hand.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPERATIONS, type OperationName } from '../../src/schemas/operations.js';

const root = join(import.meta.dirname, '..', '..');
const NAMES = Object.keys(OPERATIONS) as OperationName[];
// The guides a user reads: docs/*.md but the pages for the package's developers.
const NOT_GUIDES = new Set(['architecture.md', 'spec-decisions.md', 'reliability.md', 'benchmarks.md']);
const guides = readdirSync(join(root, 'docs'))
  .filter((f) => f.endsWith('.md') && !NOT_GUIDES.has(f))
  .map((f) => ({ file: `docs/${f}`, text: readFileSync(join(root, 'docs', f), 'utf8') }));

/** The code of a guide's TypeScript blocks, which `test/docs/doc-blocks.test.ts` type-checks and runs. */
const codeOf = (text: string): string =>
  [...text.matchAll(/^```(?:ts|typescript|js|javascript)\n([\s\S]*?)^```/gm)].map((m) => m[1]).join('\n');

describe('the guides and the table of operations', () => {
  it.each(NAMES)('a guide calls client.%s() in a code block', (name) => {
    const shown = guides.filter((g) => codeOf(g.text).includes(`client.${name}(`)).map((g) => g.file);
    expect(shown.length, `no guide in docs/ shows client.${name}()`).toBeGreaterThan(0);
  });

  it("docs/observability.md names every operation a middleware's context.operation can be", () => {
    const text = readFileSync(join(root, 'docs', 'observability.md'), 'utf8');
    const sentence = /`context\.operation` is the client method \(([^)]*)\)/.exec(
      text.replace(/\n/g, ' '),
    )?.[1];
    expect(sentence, 'the sentence that lists them').toBeDefined();
    const named = [...(sentence ?? '').matchAll(/`'([a-z]+\.[a-zA-Z]+)'`/g)].map((m) => m[1]);
    expect(named).toEqual(NAMES);
    expect(sentence, "the list is the build's, between <!-- operations --> marks").toMatch(
      /<!-- operations -->[^<]*<!-- \/operations -->/,
    );
  });
});
