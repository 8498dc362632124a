import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The temp consumer project with the packed psp-sdk installed from its tarball. */
    consumerDir: string;
    /** File names in the packed tarball, relative to its root. */
    packedFiles: string[];
  }
}

const root = new URL('../..', import.meta.url).pathname;
const here = new URL('.', import.meta.url).pathname;

/**
 * Packs the built package with `npm pack` and installs the tarball into a temp consumer project, offline: every
 * dependency comes from the npm cache that the main `npm ci` filled, so nothing is downloaded.
 */
export default function setup(project: TestProject): () => void {
  if (!existsSync(join(root, 'dist', 'index.js')))
    throw new Error('dist/ is missing: run `npm run build` first');
  const work = mkdtempSync(join(tmpdir(), 'psp-sdk-package-'));
  const packOut = execFileSync('npm', ['pack', '--json', '--pack-destination', work], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [packed] = JSON.parse(packOut) as Array<{ filename: string; files: Array<{ path: string }> }>;
  if (!packed) throw new Error(`npm pack printed no result: ${packOut}`);
  const tarball = join(work, packed.filename);

  const main = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  const consumer = join(work, 'consumer');
  mkdirSync(consumer);
  writeFileSync(
    join(consumer, 'package.json'),
    `${JSON.stringify(
      {
        name: 'psp-sdk-consumer',
        private: true,
        dependencies: { 'psp-sdk': `file:${tarball}`, msw: main.devDependencies.msw },
        devDependencies: { '@types/node': main.devDependencies['@types/node'] },
      },
      null,
      2,
    )}\n`,
  );
  for (const f of readdirSync(join(here, 'fixtures'))) cpSync(join(here, 'fixtures', f), join(consumer, f));
  cpSync(join(here, 'consumer-types'), join(consumer, 'types'), { recursive: true });

  const install = (mode: string) =>
    execFileSync(
      'npm',
      ['install', mode, '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock'],
      {
        cwd: consumer,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
  try {
    install('--offline');
  } catch {
    // A cache without one of the packages (a machine whose cache was cleaned): take it from the registry.
    install('--prefer-offline');
  }

  project.provide('consumerDir', consumer);
  project.provide(
    'packedFiles',
    packed.files.map((f) => f.path),
  );
  return () => rmSync(work, { recursive: true, force: true });
}
