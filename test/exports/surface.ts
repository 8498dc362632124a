// What the public entries export and what src/ declares, read with the TypeScript compiler (no build needed).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export const ROOT = join(import.meta.dirname, '../..');
export const SRC = join(ROOT, 'src');

/** An entry's exports: `values` exist at run time, `types` only for the compiler. */
export interface EntryExports {
  values: string[];
  types: string[];
  /** Names that are run-time values (const, function) but exported with `export type`: importing one fails. */
  typeOnlyValues: string[];
}

/** The exports of each entry file, as a consumer's compiler sees them. */
export function entryExports(files: readonly string[]): Record<string, EntryExports> {
  const program = ts.createProgram(
    files.map((f) => join(ROOT, f)),
    {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      resolveJsonModule: true,
    },
  );
  const checker = program.getTypeChecker();
  const out: Record<string, EntryExports> = {};
  for (const file of files) {
    const source = program.getSourceFile(join(ROOT, file));
    const moduleSymbol = source && checker.getSymbolAtLocation(source);
    if (!moduleSymbol) throw new Error(`${file}: not a module`);
    const entry: EntryExports = { values: [], types: [], typeOnlyValues: [] };
    for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
      const name = symbol.getName();
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      const typeOnly = (symbol.declarations ?? []).some(isTypeOnlyExport);
      const isValue = (target.flags & ts.SymbolFlags.Value) !== 0;
      const isType = (target.flags & ts.SymbolFlags.Type) !== 0;
      if (isValue && !typeOnly) entry.values.push(name);
      else entry.types.push(name);
      // A class exported type-only is its instance type (`client.payments`); a const or function is a trap.
      if (typeOnly && isValue && !isType) entry.typeOnlyValues.push(name);
    }
    for (const list of [entry.values, entry.types, entry.typeOnlyValues]) list.sort();
    out[file] = entry;
  }
  return out;
}

function isTypeOnlyExport(d: ts.Declaration): boolean {
  if (ts.isExportSpecifier(d)) return d.isTypeOnly || d.parent.parent.isTypeOnly;
  return false;
}

/** Every .ts file under src/, relative to the repository. */
export function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') ? [relative(ROOT, path)] : [];
  });
}

/** The names a file declares and exports itself (re-exports of another file's names are not declarations). */
export function declaredExports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest);
  const names: string[] = [];
  for (const node of source.statements) {
    const exported = ts.canHaveModifiers(node)
      ? ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
      : false;
    if (!exported) continue;
    if (ts.isVariableStatement(node)) {
      for (const d of node.declarationList.declarations) if (ts.isIdentifier(d.name)) names.push(d.name.text);
    } else if (
      (ts.isFunctionDeclaration(node) ||
        ts.isClassDeclaration(node) ||
        ts.isInterfaceDeclaration(node) ||
        ts.isTypeAliasDeclaration(node) ||
        ts.isEnumDeclaration(node)) &&
      node.name
    ) {
      names.push(node.name.text);
    }
  }
  return names;
}

/** The module specifiers a file imports or re-exports from. */
export function importsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest);
  const specs: string[] = [];
  for (const node of source.statements) {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier)) specs.push(node.moduleSpecifier.text);
    }
  }
  return specs;
}
