// A change a user can notice comes with a changeset (CONTRIBUTING.md, "Writing a changeset"): each operation,
// error code, option, export or flag added, removed or changed since the last release (scripts/released-surface.json,
// written by `npm run version`) is named, in backticks, by a pending changeset in .changeset/.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { changedNames, publicSurface, RELEASED_FILE, type Surface } from '../../scripts/public-surface.js';

const root = join(import.meta.dirname, '..', '..');

/** The text of every pending changeset. */
function pending(): string {
  const dir = join(root, '.changeset');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.md') && f !== 'README.md')
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n');
}

/** The names of `changed` no changeset writes as code (`name`, or inside a longer code span). */
function unnamed(changed: string[], text: string): string[] {
  const spans = [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
  return changed.filter(
    (name) => !spans.some((span) => new RegExp(`(^|[^\\w-])${literal(name)}($|[^\\w-])`).test(span)),
  );
}
const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('changesets', () => {
  it('name every public operation, code, option, export or flag changed since the last release', async () => {
    const released = JSON.parse(readFileSync(RELEASED_FILE, 'utf8')) as Surface;
    const changed = changedNames(released, await publicSurface());
    expect(unnamed(changed, pending()), 'changed since the release; name each in a changeset').toEqual([]);
  });

  it('fail for a new item no changeset names, and pass once one does', () => {
    const before: Surface = { 'operation:payments.get': 'GET /payments/{id}', 'code:not_found': '404' };
    const now: Surface = { ...before, 'operation:refunds.get': 'GET /refunds/{id}', 'code:not_found': '410' };
    const changed = changedNames(before, now);
    expect(changed).toEqual(['not_found', 'refunds.get']);
    expect(unnamed(changed, 'Adds `client.payments.get()`.')).toEqual(['not_found', 'refunds.get']);
    expect(unnamed(changed, 'Adds `client.refunds.get()` (`refunds.get`); `not_found` is now 410.')).toEqual(
      [],
    );
  });
});
