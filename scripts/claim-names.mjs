// The names users type: `psp-sdk` (the package), `psp-mcp` and `psp-reference` (its bins, which `npx <bin>` fetches
// from the registry by that name when no installed package provides it). While `psp-mcp` and `psp-reference` are
// unclaimed, whoever registers one is run by any `npx psp-mcp` typed outside a project with psp-sdk. The release
// workflow runs `--check` before it publishes: each name must be unclaimed only where this publish claims it
// (`psp-sdk`), else held by the publishing account. `--placeholder NAME DIR` writes the placeholder package that
// claims a bin's name: no bin, no script, no dependency, a README that points to psp-sdk, so `npx NAME` outside a
// project runs nothing.
//   node scripts/claim-names.mjs --check
//   node scripts/claim-names.mjs --placeholder psp-mcp /tmp/claim && (cd /tmp/claim && npm publish --access public)
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const PACKAGE = 'psp-sdk';
export const BIN_NAMES = ['psp-mcp', 'psp-reference'];

/** The placeholder package.json and README for a bin's name. */
export function placeholder(name) {
  const readme = `# ${name}\n\n\`${name}\` is a command of [psp-sdk](https://www.npmjs.com/package/psp-sdk), not a package of its own. Install psp-sdk and run the command from your project:\n\n\`\`\`bash\nnpm install --save-dev psp-sdk\nnpx --no-install ${name} --help\n\`\`\`\n\nThis name is held by psp-sdk's maintainers so that nobody else's code runs when \`npx ${name}\` is typed outside such a project.\n`;
  const pkg = {
    name,
    version: '0.0.1',
    description: `A command of psp-sdk: npm install --save-dev psp-sdk, then npx --no-install ${name}`,
    license: 'MIT',
    files: ['README.md'],
  };
  return { pkg, readme };
}

/** The registry's maintainers of `name` (npm user names), or undefined where the name is unclaimed. */
function maintainers(name) {
  try {
    const out = execFileSync('npm', ['view', name, 'maintainers', '--json'], {
      encoding: 'utf8',
      stdio: 'pipe',
    });
    const list = JSON.parse(out || '[]');
    return (Array.isArray(list) ? list : [list]).map((m) => String(m).split(' ')[0]);
  } catch (error) {
    if (/E404|404 Not Found/.test(String(error.stderr ?? error))) return undefined;
    throw error;
  }
}

if (process.argv.includes('--placeholder')) {
  const [name, dir] = process.argv.slice(process.argv.indexOf('--placeholder') + 1);
  if (!BIN_NAMES.includes(name) || !dir) {
    console.error(`usage: node scripts/claim-names.mjs --placeholder <${BIN_NAMES.join('|')}> <dir>`);
    process.exit(2);
  }
  const { pkg, readme } = placeholder(name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  writeFileSync(join(dir, 'README.md'), readme);
  console.log(`wrote the placeholder of ${name} in ${dir}`);
} else if (process.argv.includes('--check')) {
  const me = execFileSync('npm', ['whoami'], { encoding: 'utf8' }).trim();
  const problems = [];
  for (const name of [PACKAGE, ...BIN_NAMES]) {
    const owners = maintainers(name);
    if (owners === undefined) {
      if (name !== PACKAGE)
        problems.push(`${name} is unclaimed: publish its placeholder first (CONTRIBUTING.md, "Releasing")`);
    } else if (!owners.includes(me)) problems.push(`${name} belongs to ${owners.join(', ')}, not ${me}`);
  }
  for (const p of problems) console.error(`claim-names: ${p}`);
  process.exit(problems.length ? 1 : 0);
} else if (process.argv[1]?.endsWith('claim-names.mjs')) {
  console.error('usage: node scripts/claim-names.mjs --check | --placeholder <name> <dir>');
  process.exit(2);
}
