// scripts/build-mcp-texts.mjs: the resources psp-mcp serves are a copy inside the package (src/mcp/texts.json): it must be the guides as they
// are, and the spec as the repository's sibling holds it where this machine has it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs build script, without types
import { mcpTexts, specPath, TEXTS_FILE } from '../../scripts/build-mcp-texts.mjs';

describe('src/mcp/texts.json', () => {
  it('holds the guides as they are now (else run `node scripts/build-mcp-texts.mjs`)', () => {
    const committed = JSON.parse(readFileSync(TEXTS_FILE, 'utf8')) as {
      spec: string;
      docs: Record<string, string>;
    };
    const now = mcpTexts() as typeof committed;
    expect(Object.keys(committed.docs)).toEqual(Object.keys(now.docs));
    for (const [name, text] of Object.entries(now.docs)) expect(committed.docs[name], name).toBe(text);
    expect(committed.docs).toHaveProperty('mcp');
    expect(committed.spec).toMatch(/^# Payment Service Public API/);
    if (specPath()) expect(committed.spec).toBe(now.spec);
  });
});
