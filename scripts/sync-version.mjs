#!/usr/bin/env node
// Writes package.json's version into src/internal/version.ts; `npm run version` runs it after `changeset version`.
import { readFileSync, writeFileSync } from 'node:fs';

const root = new URL('..', import.meta.url);
const { version } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const file = new URL('src/internal/version.ts', root);
const source = readFileSync(file, 'utf8');
const next = source.replace(
  /export const VERSION: string = '[^']*';/,
  `export const VERSION: string = '${version}';`,
);
if (next === source && !source.includes(`'${version}'`))
  throw new Error('src/internal/version.ts: no VERSION line');
writeFileSync(file, next);
