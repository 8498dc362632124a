import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

async function markdownFiles(): Promise<string[]> {
  const docs = (await readdir(join(root, 'docs')))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f));
  return ['README.md', 'examples/README.md', ...docs];
}

/** GitHub's heading anchor: lowercase, punctuation dropped, spaces to dashes. */
function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N} -]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(markdown: string): Set<string> {
  const out = new Set<string>();
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    const m = !inFence && /^#{1,6}\s+(.*)$/.exec(line);
    if (m) out.add(anchor(m[1]!));
  }
  return out;
}

describe('README and docs', () => {
  it('link only to files (and headings) that exist', async () => {
    const broken: string[] = [];
    for (const file of await markdownFiles()) {
      const text = await readFile(join(root, file), 'utf8');
      const prose = text.replace(/```[\s\S]*?```/g, '');
      for (const m of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/i.test(target)) continue; // http(s), mailto
        const [path, hash] = target.split('#') as [string, string | undefined];
        const resolved = path ? join(dirname(join(root, file)), path) : join(root, file);
        if (!existsSync(resolved)) {
          broken.push(`${file}: ${target} (no ${relative(root, resolved)})`);
          continue;
        }
        if (hash && resolved.endsWith('.md') && !anchorsOf(await readFile(resolved, 'utf8')).has(hash)) {
          broken.push(`${file}: ${target} (no heading #${hash})`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it("open with a user's quick start (the packed tarball, an ES module), then the contributor's two commands, wired", async () => {
    const readme = await readFile(join(root, 'README.md'), 'utf8');
    const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
      version: string;
      scripts: Record<string, string>;
    };
    const commandsOf = (section: string) =>
      (new RegExp(`## ${section}[\\s\\S]*?\`\`\`bash\n([\\s\\S]*?)\`\`\``).exec(readme)?.[1] ?? '')
        .split('\n')
        .map((l) => l.replace(/#.*$/, '').trim())
        .filter(Boolean);
    expect(readme.indexOf('## Quick start')).toBeGreaterThan(0);
    expect(readme.indexOf('## Quick start')).toBeLessThan(readme.indexOf('## Working on psp-sdk'));
    // npm init -y writes CommonJS, where the quick start's top-level await fails: the user sets "type": "module".
    expect(commandsOf('Quick start')).toEqual([
      'npm init -y',
      'npm pkg set type=module',
      `npm install ../psp-sdk/psp-sdk-${pkg.version}.tgz`,
      'npm install --save-dev tsx',
    ]);
    expect(commandsOf('Working on psp-sdk')).toEqual(['npm install && npm start', 'npm test']);
    expect(pkg.scripts.start).toBe('tsx scripts/demo.ts');
    expect(pkg.scripts.test).toBeTruthy();
  });
});
