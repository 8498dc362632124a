// Issue 43 item 5, as docs/architecture.md states it: no function of src/ is over 80 lines unless a comment above
// it (`// Over 80 lines: <reason>.`) says why. Measured with TypeScript's own parser, every function-like node.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const MAX = 80;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name);
    if (d.isDirectory()) return sources(path);
    return /\.ts$/.test(d.name) && !d.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The functions of `text` over MAX lines, each with whether a reason precedes the statement that holds it. */
function longFunctions(file: string, text: string): Array<{ where: string; reasoned: boolean }> {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Array<{ where: string; reasoned: boolean }> = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body) {
      const first = sf.getLineAndCharacterOfPosition(node.getStart()).line;
      const last = sf.getLineAndCharacterOfPosition(node.end).line;
      if (last - first + 1 > MAX) {
        let at: ts.Node = node;
        while (at.parent && !ts.isSourceFile(at.parent) && !ts.isBlock(at.parent)) at = at.parent;
        const comments = ts.getLeadingCommentRanges(text, at.getFullStart()) ?? [];
        const reasoned = comments.some((c) => /^\/\/ Over 80 lines: \S/.test(text.slice(c.pos, c.end)));
        found.push({ where: `${relative(root, file)}:${first + 1} (${last - first + 1} lines)`, reasoned });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

describe('the functions of src/', () => {
  it(`are at most ${MAX} lines, or say why above them`, () => {
    const unreasoned = sources(join(root, 'src'))
      .flatMap((f) => longFunctions(f, readFileSync(f, 'utf8')))
      .filter((f) => !f.reasoned)
      .map((f) => f.where);
    expect(unreasoned).toEqual([]);
  });

  it('finds a long function and its reason (the rule can fail)', () => {
    const body = Array.from({ length: MAX }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const long = `export function f() {\n${body}\n}\n`;
    expect(longFunctions('x.ts', long)).toEqual([
      { where: expect.stringContaining('x.ts:1'), reasoned: false },
    ]);
    expect(longFunctions('x.ts', `// Over 80 lines: a table.\n${long}`)[0]?.reasoned).toBe(true);
    expect(longFunctions('x.ts', 'export function g() {\n  return 1;\n}\n')).toEqual([]);
  });
});
