import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApiError } from '../../src/client/errors.js';
import * as sdk from '../../src/index.js';
import { ERROR_CODES, type ErrorCode } from '../../src/schemas/errors.js';

/**
 * docs/errors.md promises which class each status and code becomes. This reads that table and asks the SDK's
 * own createApiError, so the guide cannot drift from the code.
 */
const text = await readFile(join(import.meta.dirname, '..', '..', 'docs', 'errors.md'), 'utf8');

/** The rows of the tables of a part of the page whose first cell is a status. */
const tableRows = (part: string) =>
  part
    .split('\n')
    .filter((l) => l.startsWith('| '))
    .map((l) => l.split('|').map((c) => c.trim()))
    .map(([, status = '', codes = '', cls = '']) => ({ status, codes, cls: cls.replace(/`/g, '') }))
    .filter((r) => /^(\d{3}|\d{3} or \d{3}|5xx)$/.test(r.status));

// The SDK's table: up to the next heading of its level (the control surface's table has no client class).
const start = text.indexOf('## Every status and code');
const section = text.slice(start, text.indexOf('\n### ', start));
const rows = tableRows(section);

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
      new Set([400, 401, 403, 404, 405, 408, 409, 421, 422, 429, 431, 500, 503, 504]),
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

  // Issue 35 item 2: a code added to the table (src/schemas/errors.ts) without its row here fails.
  it('has a row for every code of the table of codes, at its status', () => {
    const statusesOf = new Map<string, string[]>();
    for (const r of tableRows(text))
      for (const [, code] of r.codes.matchAll(/`([a-z_]+)`/g))
        statusesOf.set(code!, [...(statusesOf.get(code!) ?? []), r.status]);
    const missing = (Object.keys(ERROR_CODES) as ErrorCode[]).filter((code) => {
      const status = ERROR_CODES[code].status;
      return !statusesOf
        .get(code)
        ?.some((s) => s.split(' or ').includes(String(status)) || (s === '5xx' && status >= 500));
    });
    expect(missing, 'codes without a row at their status in docs/errors.md').toEqual([]);
  });
});
