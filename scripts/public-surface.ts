// The public surface a changeset must name when it changes: the operations (name, method, path), the error codes
// (code, status), the options of the client, the reference and psp-mcp (each property of their option types), each
// entry's exports, and the bins' flags. scripts/released-surface.json holds it as the last release left it;
// test/docs/changesets.test.ts fails when an item was added, removed or changed and no pending changeset names it.
// `npm run version` writes the file anew once the changesets are turned into the changelog.
// Usage: tsx scripts/public-surface.ts --write
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mcpTextsDefine } from './build-mcp-texts.mjs';

const root = join(import.meta.dirname, '..');
export const RELEASED_FILE = join(root, 'scripts', 'released-surface.json');

/** Item key -> what it is now. The name a changeset must write is the key's part after the first colon. */
export type Surface = Record<string, string>;

/** The files whose interfaces are options a user passes, and the interfaces. */
const OPTION_TYPES: Array<[file: string, names: string[]]> = [
  ['src/client/options.ts', ['ClientOptions', 'RequestOptions']],
  ['src/reference/service.ts', ['ReferenceOptions']],
  ['src/reference/start.ts', ['StartReferenceOptions']],
  ['src/mcp/options.ts', ['PspMcpOptions']],
];

const ENTRIES = {
  'psp-sdk': 'src/index.ts',
  'psp-sdk/webhooks': 'src/webhooks/index.ts',
  'psp-sdk/replicas': 'src/replicas/index.ts',
  'psp-sdk/conformance': 'src/conformance/index.ts',
  'psp-sdk/reference': 'src/reference/index.ts',
  'psp-sdk/reference/msw': 'src/reference/msw.ts',
  'psp-sdk/mcp': 'src/mcp/index.ts',
};

const FLAG = /(?<![\w-])--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)\b/g;

/** The properties an interface declares in its own body (two-space indented `name?:` lines). */
function interfaceProperties(source: string, name: string): string[] {
  const start = source.indexOf(`export interface ${name} `);
  if (start < 0) throw new Error(`no interface ${name}`);
  const body = source.slice(start, source.indexOf('\n}', start));
  return [...body.matchAll(/^ {2}(\w+)\??:/gm)].map((m) => m[1]!);
}

/** The bins' flags: psp-reference's from its help texts (made from its option tables), psp-mcp's from its source. */
async function flags(): Promise<string[]> {
  const { USAGE } = await import('../src/reference/cli/cli-args.js');
  const { TRIGGER_USAGE } = await import('../src/reference/cli/trigger-args.js');
  const { SHADOW_USAGE } = await import('../src/reference/cli/cli-shadow.js');
  const { CONTRACT_USAGE } = await import('../src/reference/cli/cli-contract.js');
  const { READINESS_USAGE } = await import('../src/reference/cli/cli-readiness.js');
  // psp-mcp's CLI runs when imported: its text is read instead.
  const mcp = readFileSync(join(root, 'src', 'mcp', 'cli.ts'), 'utf8');
  const found = new Set<string>();
  for (const text of [USAGE, TRIGGER_USAGE, SHADOW_USAGE, CONTRACT_USAGE, READINESS_USAGE, mcp])
    for (const m of text.matchAll(FLAG)) found.add(`--${m[1]}`);
  return [...found].sort();
}

/** The surface as the sources say now. */
export async function publicSurface(): Promise<Surface> {
  const { OPERATIONS } = await import('../src/schemas/operations.js');
  const { ERROR_CODES } = await import('../src/schemas/errors.js');
  const surface: Surface = {};
  for (const [name, row] of Object.entries(OPERATIONS))
    surface[`operation:${name}`] = `${row.method} ${row.path}`;
  for (const [code, info] of Object.entries(ERROR_CODES)) surface[`code:${code}`] = String(info.status);
  for (const [file, names] of OPTION_TYPES) {
    const source = readFileSync(join(root, file), 'utf8');
    for (const name of names)
      for (const prop of interfaceProperties(source, name)) surface[`option:${prop}`] = name;
  }
  // psp-mcp's texts are put in by the bundlers (scripts/build-mcp-texts.mjs); outside one, here.
  const texts = mcpTextsDefine();
  for (const [name, value] of Object.entries(texts))
    (globalThis as Record<string, unknown>)[name] ??= JSON.parse(value);
  for (const [entry, file] of Object.entries(ENTRIES)) {
    const mod = (await import(join(root, file))) as Record<string, unknown>;
    for (const name of Object.keys(mod)) {
      const key = `export:${name}`;
      surface[key] = surface[key] ? `${surface[key]} ${entry}` : entry;
    }
  }
  for (const flag of await flags()) surface[`flag:${flag}`] = 'flag';
  return surface;
}

/** The items added, removed or changed from `before` to `now`, as the names a changeset writes. */
export function changedNames(before: Surface, now: Surface): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(now)]);
  const changed = [...keys].filter((key) => before[key] !== now[key]);
  return [...new Set(changed.map((key) => key.slice(key.indexOf(':') + 1)))].sort();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  if (!process.argv.includes('--write')) {
    console.error('usage: tsx scripts/public-surface.ts --write');
    process.exit(2);
  }
  writeFileSync(RELEASED_FILE, `${JSON.stringify(await publicSurface(), null, 1)}\n`);
  console.log(`wrote ${RELEASED_FILE}`);
}
