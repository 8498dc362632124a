import { execFile } from 'node:child_process';
import { copyFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tsc } from '../support/tsc.js';
import { type DocBlock, extractTsBlocks } from './extract.js';

const root = join(import.meta.dirname, '..', '..');
const outDir = join(root, 'test-output', 'doc-blocks');
const run = promisify(execFile);

async function markdownFiles(): Promise<string[]> {
  const docs = (await readdir(join(root, 'docs'), { withFileTypes: true }))
    .filter((d) => d.isFile() && d.name.endsWith('.md'))
    .map((d) => join('docs', d.name))
    .sort();
  return ['README.md', ...docs];
}

async function allBlocks(): Promise<DocBlock[]> {
  const blocks: DocBlock[] = [];
  for (const file of await markdownFiles()) {
    blocks.push(...extractTsBlocks(file, await readFile(join(root, file), 'utf8')));
  }
  return blocks;
}

// A block becomes its own module (the trailing export makes it one), so blocks may reuse names and use
// top-level await, and the package's public entry points resolve to the sources through `paths`.
const paths = {
  'psp-sdk': ['../../src/index.ts'],
  'psp-sdk/webhooks': ['../../src/webhooks/index.ts'],
  'psp-sdk/replicas': ['../../src/replicas/index.ts'],
  'psp-sdk/conformance': ['../../src/conformance/index.ts'],
  'psp-sdk/reference': ['../../src/reference/index.ts'],
  'psp-sdk/reference/msw': ['../../src/reference/msw.ts'],
  'psp-sdk/mcp': ['../../src/mcp/index.ts'],
};

/**
 * Each block is checked twice: under the project's own options, and under what `tsc --init` writes today
 * (TypeScript 7.0.2: nodenext, esnext, exactOptionalPropertyTypes, noUncheckedIndexedAccess, verbatimModuleSyntax,
 * noUncheckedSideEffectImports, moduleDetection force), which is what a new project copying a block compiles it
 * with. `types: ['node']` is the line `tsc --init` suggests for Node; `noEmit` replaces its outputs.
 */
const configs = {
  project: {
    target: 'ES2022',
    lib: ['ES2023'],
    module: 'ESNext',
    moduleResolution: 'Bundler',
    types: ['node'],
    strict: true,
    noUncheckedIndexedAccess: true,
    isolatedModules: true,
    verbatimModuleSyntax: true,
    resolveJsonModule: true,
    esModuleInterop: true,
    skipLibCheck: true,
  },
  'tsc --init': {
    module: 'nodenext',
    target: 'esnext',
    types: ['node'],
    sourceMap: true,
    declaration: true,
    declarationMap: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    strict: true,
    jsx: 'react-jsx',
    verbatimModuleSyntax: true,
    isolatedModules: true,
    noUncheckedSideEffectImports: true,
    moduleDetection: 'force',
    skipLibCheck: true,
  },
} as const;

function tsconfigOf(options: (typeof configs)[keyof typeof configs]) {
  return {
    compilerOptions: { ...options, noEmit: true, typeRoots: ['../../node_modules/@types'], paths },
    // The examples are copied into projects too: they are checked with the blocks.
    include: ['*.ts', '../../examples/*.ts', '../../examples/support/*.ts'],
  };
}

function blockFileName(block: DocBlock, index: number): string {
  return `${block.file.replace(/\.md$/, '').replace(/[^\w]+/g, '-')}-${index + 1}.ts`;
}

describe('extractTsBlocks', () => {
  it('takes ts and typescript fences, skips nocheck and other languages, and records the first code line', () => {
    const md = [
      '# Title', // 1
      '```ts', // 2
      'const a = 1;', // 3
      '```', // 4
      '```bash', // 5
      'npm start', // 6
      '```', // 7
      '```ts nocheck', // 8
      'partial(', // 9
      '```', // 10
      '```typescript run', // 11
      'const b = 2;', // 12
      '````', // 13: a longer fence closes a shorter one
      '- item', // 14
      '  ```ts', // 15
      '  const c = 3;', // 16
      '  ```', // 17
    ].join('\n');
    expect(extractTsBlocks('x.md', md)).toEqual([
      { file: 'x.md', line: 3, code: 'const a = 1;', flags: [] },
      { file: 'x.md', line: 12, code: 'const b = 2;', flags: ['run'] },
      { file: 'x.md', line: 16, code: 'const c = 3;', flags: [] },
    ]);
  });

  it('does not treat a fence inside a longer fence as a block', () => {
    const md = ['````md', '```ts', 'not code', '```', '````'].join('\n');
    expect(extractTsBlocks('x.md', md)).toEqual([]);
  });
});

describe('code blocks of README.md and docs/*.md, and examples/', () => {
  // tsc over the blocks and the sources they import takes seconds, more on a loaded machine.
  it('type-check against the package sources', { timeout: 120_000 }, async () => {
    const blocks = await allBlocks();
    // README's example and the guides' blocks exist; an empty list would make this test vacuous.
    expect(blocks.length).toBeGreaterThan(10);
    await rm(outDir, { recursive: true, force: true });
    await mkdir(outDir, { recursive: true });
    const byFile = new Map<string, DocBlock>();
    await Promise.all(
      blocks.map((block, i) => {
        const name = blockFileName(block, i);
        byFile.set(name, block);
        return writeFile(join(outDir, name), `${block.code}\nexport {};\n`);
      }),
    );
    // Kept as .txt so that its ambient declarations (a global Deno) stay out of the project's own typecheck.
    await copyFile(
      join(import.meta.dirname, 'shims', 'frameworks.d.ts.txt'),
      join(outDir, 'frameworks.d.ts'),
    );
    const located: string[] = [];
    for (const [name, options] of Object.entries(configs)) {
      await writeFile(join(outDir, 'tsconfig.json'), JSON.stringify(tsconfigOf(options), null, 2));
      const result = await run(
        process.execPath,
        [tsc, '-p', join(outDir, 'tsconfig.json'), '--pretty', 'false'],
        { cwd: root, maxBuffer: 16 * 1024 * 1024 },
      ).then(
        () => ({ out: '' }),
        (err: { stdout?: string; stderr?: string }) => ({ out: `${err.stdout ?? ''}${err.stderr ?? ''}` }),
      );
      // Point each diagnostic at the Markdown line it came from, so a failing doc is fixed where it is written.
      // Diagnostics inside src/ are the project typecheck's business (npm run typecheck), not the docs'.
      located.push(
        ...result.out
          .split('\n')
          .map((l) => /^(?:.*[\\/])?([^\\/()]+\.ts)\((\d+),(\d+)\): (.*)$/.exec(l))
          .flatMap((m) => {
            const block = m ? byFile.get(m[1]!) : undefined;
            return m && block
              ? [`${block.file}:${block.line + Number(m[2]) - 1}:${m[3]} (${name}) ${m[4]}`]
              : [];
          }),
        ...result.out.split('\n').filter((l) => /^(?:\.\.[\\/])*examples[\\/]/.test(l)),
      );
    }
    expect(
      located,
      `doc blocks that do not type-check. Fix the Markdown, or, for a block that cannot compile here (a framework that is not installed), open its fence with \`\`\`ts nocheck:\n${located.join('\n')}`,
    ).toEqual([]);
  });
});
