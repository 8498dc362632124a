// Public types work under `exactOptionalPropertyTypes` (tsc --init's default since TypeScript 5.9): there,
// `apiKey?: string` refuses `apiKey: process.env.PSP_API_KEY`. One rule for every hand-written type in src/ (a
// public option type is often built from an internal one): an optional property says `| undefined`. The zod
// schemas' inferred types already do; the doc blocks are compiled under tsc --init's options (test/docs).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT, sourceFiles } from './surface.js';

function acceptsUndefined(type: ts.TypeNode): boolean {
  if (
    type.kind === ts.SyntaxKind.UndefinedKeyword ||
    type.kind === ts.SyntaxKind.AnyKeyword ||
    type.kind === ts.SyntaxKind.UnknownKeyword
  )
    return true;
  if (ts.isUnionTypeNode(type)) return type.types.some(acceptsUndefined);
  if (ts.isParenthesizedTypeNode(type)) return acceptsUndefined(type.type);
  return false;
}

/**
 * A property of an object the SDK passes to someone else's function (OpenTelemetry's `startSpan(name, options)`):
 * the parameter of a function or method type. Its form is that library's; `| undefined` there would refuse it.
 */
function passedOut(node: ts.Node): boolean {
  for (let at: ts.Node | undefined = node.parent; at; at = at.parent) {
    if (ts.isParameter(at)) return ts.isFunctionTypeNode(at.parent) || ts.isMethodSignature(at.parent);
    if (!ts.isTypeLiteralNode(at) && !ts.isPropertySignature(at)) return false;
  }
  return false;
}

/** `file:line name` of each optional property signature whose type leaves out undefined. */
function exactOptionals(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isPropertySignature(node) && node.questionToken && node.type && !acceptsUndefined(node.type)) {
      if (!passedOut(node)) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
        found.push(`${file}:${line + 1} ${node.name.getText(source)}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('optional properties of the types in src/', () => {
  it('finds an optional property that refuses undefined, and passes one that accepts it', () => {
    const code = [
      'export interface A { a?: string; b?: string | undefined; c?: (() => void) | undefined }',
      'export interface B { d: { e?: number }; f(options?: { g?: number }): void }',
    ].join('\n');
    expect(exactOptionals('x.ts', code)).toEqual(['x.ts:1 a', 'x.ts:2 e']);
  });

  it('every optional property accepts undefined', () => {
    const found = sourceFiles().flatMap((f) => exactOptionals(f, readFileSync(join(ROOT, f), 'utf8')));
    expect(found, 'add `| undefined` to these (exactOptionalPropertyTypes)').toEqual([]);
  });
});
