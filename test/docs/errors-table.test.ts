import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApiError } from '../../src/client/errors.js';
import * as sdk from '../../src/index.js';

/**
 * docs/errors.md promises which class each status and code becomes. This reads that table and asks the SDK's
 * own createApiError, so the guide cannot drift from the code.
 */
const text = await readFile(join(import.meta.dirname, '..', '..', 'docs', 'errors.md'), 'utf8');
const section = text.slice(text.indexOf('## Every status and code'));
const rows = section
  .split('\n')
  .filter((l) => l.startsWith('| '))
  .map((l) => l.split('|').map((c) => c.trim()))
  .map(([, status = '', codes = '', cls = '']) => ({ status, codes, cls: cls.replace(/`/g, '') }))
  .filter((r) => /^(\d{3}|\d{3} or \d{3}|5xx)$/.test(r.status));

const cases = rows.flatMap((r) => {
  const statuses = r.status === '5xx' ? [500, 503] : r.status.split(' or ').map(Number);
  const derived = r.codes.includes('(derived)');
  const codes = [...r.codes.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!);
  return statuses.flatMap((status) =>
    (codes.length ? codes : [undefined]).map((code) => ({ status, code, derived, cls: r.cls })),
  );
});

describe('docs/errors.md', () => {
  it('lists every API status the SDK maps', () => {
    expect(new Set(cases.map((c) => c.status))).toEqual(
      new Set([400, 401, 403, 404, 408, 409, 422, 429, 500, 503]),
    );
    expect(cases.length).toBeGreaterThanOrEqual(18);
  });

  it.each(cases.map((c) => [`${c.status} ${c.code ?? ''} -> ${c.cls}`, c] as const))('%s', (_name, c) => {
    const body =
      c.code && !c.derived ? { error: { code: c.code, message: 'm' } } : { error: { message: 'm' } };
    const err = createApiError({ status: c.status, body, headers: new Headers(), attempts: 1 });
    const Cls = (sdk as unknown as Record<string, new (...args: never[]) => Error>)[c.cls];
    expect(Cls, `${c.cls} is exported from psp-sdk`).toBeTypeOf('function');
    expect(err.constructor).toBe(Cls);
    if (c.code) expect(err.code).toBe(c.code);
  });
});
