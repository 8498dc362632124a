import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Every package the repository's code imports is declared in a package.json that installs it (issue 35.8): one of
 * those above the file, up to the repository's, as node resolves (bench/ and the pinned runtimes have their own).
 * A test that imported `dompurify` worked only because mermaid happened to bring it.
 */
const root = join(import.meta.dirname, '..', '..');

/** The names the package.json files from `file`'s folder up to the repository's declare (and their own names). */
function declaredFor(file: string): Set<string> {
  const names = new Set<string>();
  const lists = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'];
  for (let dir = dirname(join(root, file)); dir.startsWith(root); dir = dirname(dir)) {
    if (!existsSync(join(dir, 'package.json'))) continue;
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
    names.add(String(pkg.name));
    for (const k of lists) for (const name of Object.keys((pkg[k] ?? {}) as object)) names.add(name);
  }
  return names;
}
const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

/**
 * The code files under `dir` that are the repository's own: tracked, or new and not ignored. What git ignores is
 * built or installed (node_modules, dist/, and bench/results/dist, the build `npm run bench` copies), not code
 * anyone wrote.
 */
function codeFiles(dir: string): string[] {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z', '--', dir], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((f) => /\.(?:[cm]?[jt]s|tsx)$/.test(f) && existsSync(join(root, f)));
}

/** The package a bare specifier names (`@scope/name/sub` -> `@scope/name`), or undefined for a path or a URL. */
function packageOf(specifier: string): string | undefined {
  if (/^[./]|^[a-z]+:/.test(specifier) && !specifier.startsWith('node:')) return undefined;
  if (builtins.has(specifier) || builtins.has(specifier.split('/')[0] ?? '')) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Bare specifiers of static imports, re-exports, dynamic imports and requires. */
function specifiers(source: string): string[] {
  const found = source.matchAll(
    /(?:^|[\s;])(?:import|export)\s[^'"`;]*?\sfrom\s+['"]([^'"]+)['"]|(?:^|[\s;])import\s+['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)|\brequire\(\s*['"]([^'"]+)['"]\s*\)/gm,
  );
  return [...found].map((m) => m[1] ?? m[2] ?? m[3] ?? m[4] ?? '');
}

describe('imports are declared', () => {
  it('finds the specifiers it is meant to, and names their packages', () => {
    const source =
      "import a from 'dompurify';\nimport { b } from '@scope/pkg/sub';\nimport './x.js';\n" +
      "const c = await import('zod');\nrequire('node:fs');\nexport * from 'hono/utils';\n";
    expect(specifiers(source).map(packageOf).filter(Boolean)).toEqual([
      'dompurify',
      '@scope/pkg',
      'zod',
      'hono',
    ]);
  });

  it('every package imported by src/, test/, scripts/, bench/ and examples/ is in its package.json', () => {
    const undeclared: string[] = [];
    for (const file of ['src', 'test', 'scripts', 'bench', 'examples'].flatMap(codeFiles)) {
      const declared = declaredFor(file);
      for (const name of specifiers(readFileSync(join(root, file), 'utf8')).map(packageOf)) {
        if (name && !declared.has(name)) undeclared.push(`${file}: ${name}`);
      }
    }
    expect(undeclared).toEqual([]);
  });
});
