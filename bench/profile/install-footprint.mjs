// What an app that installs only one SDK gets in node_modules: packages and bytes, measured the same way for each.
// psp-sdk from the tarball `npm pack` makes of this checkout, the peers from the registry at the versions the bench
// pins. Prints a markdown table for bench/analysis.md ("Install footprint").
//
//   node bench/profile/install-footprint.mjs

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH, ROOT } from '../lib/sdk.mjs';

const npm = (args, cwd) =>
  execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const pinned = JSON.parse(readFileSync(join(BENCH, 'package.json'), 'utf8'));
const version = (name) =>
  String(pinned.dependencies?.[name] ?? pinned.devDependencies?.[name]).replace(/^[~^]/, '');

const work = mkdtempSync(join(tmpdir(), 'footprint-'));
try {
  const tarball = join(
    work,
    npm(['pack', '--silent', '--pack-destination', work], ROOT).trim().split('\n').pop(),
  );
  const { version: ours } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const apps = [
    [`psp-sdk ${ours} (tarball)`, tarball],
    [`stripe ${version('stripe')}`, `stripe@${version('stripe')}`],
    [`openai ${version('openai')}`, `openai@${version('openai')}`],
  ];
  console.log('| package | packages installed | `node_modules` |\n|---|---:|---:|');
  for (const [label, spec] of apps) {
    const app = mkdtempSync(join(work, 'app-'));
    npm(['init', '-y'], app);
    npm(['install', '--no-audit', '--no-fund', spec], app);
    // Every installed package, the app itself excluded.
    const packages = npm(['ls', '--all', '--parseable'], app).trim().split('\n').length - 1;
    const bytes = Number(
      execFileSync('du', ['-sb', 'node_modules'], { cwd: app, encoding: 'utf8' }).split('\t')[0],
    );
    const names = npm(['ls', '--all', '--parseable'], app)
      .trim()
      .split('\n')
      .slice(1)
      .map((p) => {
        const mb = Number(execFileSync('du', ['-sb', p], { encoding: 'utf8' }).split('\t')[0]) / 1e6;
        return `${p.split('node_modules/').pop()} ${mb.toFixed(2)} MB`;
      });
    console.log(`| ${label} | ${packages} | ${(bytes / 1e6).toFixed(1)} MB |`);
    console.error(`${label}: ${names.join(', ')}`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
