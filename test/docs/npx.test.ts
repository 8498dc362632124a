// No registry surprise (issue 40 item 8): `npx psp-mcp` typed where psp-sdk is not installed fetches and runs
// whatever package of that name the registry holds. Every command and MCP config the docs hand a reader runs the
// installed bin: `npx --no-install psp-...` (or a path), never a bare `npx psp-...`.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script, without types
import { BIN_NAMES, PACKAGE, placeholder } from '../../scripts/claim-names.mjs';

const root = join(import.meta.dirname, '..', '..');

/** What a reader copies from: the guides, the top-level pages, the examples, the workflows and the action. */
function readerFiles(): string[] {
  const files: string[] = [
    'README.md',
    'CONTRIBUTING.md',
    'SECURITY.md',
    'Dockerfile',
    'action.yml',
    'bench/analysis.md',
  ];
  for (const dir of ['docs', 'examples', '.github/workflows'])
    for (const entry of readdirSync(join(root, dir), { recursive: true, withFileTypes: true }))
      if (entry.isFile() && /\.(md|ts|mjs|js|json|ya?ml|sh)$/.test(entry.name))
        files.push(relative(root, join(entry.parentPath, entry.name)));
  return files.filter((f) => existsSync(join(root, f)));
}

/** The lines of `text` that run a psp bin through npx without --no-install (commands and JSON configs). */
function bareNpx(text: string): string[] {
  const found: string[] = [];
  for (const line of text.split('\n')) {
    if (/\bnpx(?:\s+(?:-y|--yes))?\s+psp-/.test(line)) found.push(line.trim());
    // A JSON config: "command": "npx", "args": ["psp-mcp", ...] (or ["-y", "psp-mcp"]).
    if (/"args"\s*:\s*\[\s*(?:"(?:-y|--yes)"\s*,\s*)?"psp-/.test(line)) found.push(line.trim());
  }
  return found;
}

describe('the docs run the installed bins', () => {
  it('no page, example or workflow runs a bare `npx psp-...`', () => {
    const offenders = readerFiles().flatMap((file) =>
      bareNpx(readFileSync(join(root, file), 'utf8')).map((line) => `${file}: ${line}`),
    );
    expect(offenders).toEqual([]);
  });

  it('the check catches the forms a config or a command takes', () => {
    expect(bareNpx('npx psp-mcp --help')).toHaveLength(1);
    expect(bareNpx('claude mcp add psp -- npx -y psp-mcp')).toHaveLength(1);
    expect(bareNpx('{ "command": "npx", "args": ["psp-mcp"] }')).toHaveLength(1);
    expect(bareNpx('npx --no-install psp-mcp --help')).toEqual([]);
    expect(bareNpx('{ "command": "npx", "args": ["--no-install", "psp-mcp"] }')).toEqual([]);
  });

  it("claims the bins' names with placeholders that run nothing", () => {
    expect(PACKAGE).toBe('psp-sdk');
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    expect([...BIN_NAMES].sort()).toEqual(Object.keys(pkg.bin).sort());
    for (const name of BIN_NAMES) {
      const claim = placeholder(name) as { pkg: Record<string, unknown>; readme: string };
      expect(claim.pkg.name).toBe(name);
      for (const field of ['bin', 'scripts', 'dependencies', 'main', 'exports'])
        expect(claim.pkg).not.toHaveProperty(field);
      expect(claim.readme).toContain(`npx --no-install ${name}`);
    }
  });
});
