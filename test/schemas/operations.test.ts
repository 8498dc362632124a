// The table of operations (src/schemas/operations.ts) is the one place an endpoint is written (issue 22, item 1):
// (a) no other file of src/ holds a path of the public API as a string in code, and no other file names a path
//     with an id in it (`/payments/{id}/refund`) at all, comments included: prose names the operation
//     (`payments.refund`); TSDoc examples of what a user writes (`client.request('GET', '/banks/sbp')`) may show a
//     path without an id, as user code does;
// (b) the reference's hono routes under /api/v1/public are exactly the table's rows, method and path;
// (c) every method of the client's resources sends operations of the table, and every row has a method.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import type { AttemptContext, Middleware } from '../../src/client/middleware.js';
import { PspClient } from '../../src/psp-client.js';
import { ManualClock } from '../../src/reference/domain/clock.js';
import { Domain } from '../../src/reference/domain/core.js';
import { createApp } from '../../src/reference/http/app.js';
import type { AppDeps } from '../../src/reference/http/context.js';
import { createReference } from '../../src/reference/service.js';
import {
  OPERATIONS,
  type OperationName,
  type OperationRow,
  PUBLIC_PREFIX,
} from '../../src/schemas/operations.js';
import { OPERATION_CASES } from '../support/operation-cases.js';

const SRC = join(import.meta.dirname, '../../src');
const TABLE = 'schemas/operations.ts';
const NAMES = Object.keys(OPERATIONS) as OperationName[];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/**
 * Every string a file writes in code: string literals and templates, a template's `${...}` read as `{id}`, a
 * hono parameter (`/:id`) as `/{id}`, so `/payments/${id}/refund` and `/payments/:id/refund` are the row's path.
 * Comments are not nodes of the tree, so they are not read.
 */
function codeStrings(text: string): string[] {
  const source = ts.createSourceFile('code.ts', text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) out.push(node.text);
    else if (ts.isTemplateExpression(node))
      out.push(node.head.text + node.templateSpans.map((s) => `{id}${s.literal.text}`).join(''));
    node.forEachChild(visit);
  };
  visit(source);
  return out.map((s) => s.replace(/\/:\w+/g, '/{id}').replace(/\/\{\w+\}/g, '/{id}'));
}

const reEscape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// A row's path as a whole path: not the tail of a longer one (`/_simulator/payments`) unless that is the API's
// prefix, nor the head of one (`/events/{id}/resend`, a control route).
const pathPatterns = NAMES.map(
  (name) => new RegExp(`(?:(?<![\\w.-])|(?<=/api/v1/public))${reEscape(OPERATIONS[name].path)}(?![\\w{}/-])`),
);

const FIRST_SEGMENTS = [...new Set(NAMES.map((n) => `/${OPERATIONS[n].path.split('/')[1]}`))];

/** The files of src/ whose code holds a path of the public API, with the strings that do. */
function filesWithPaths(files: string[]): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    // Parsing is the slow part: only files that name a first segment of a row are read as code.
    if (!FIRST_SEGMENTS.some((s) => text.includes(s))) continue;
    const hits = codeStrings(text).filter((s) => pathPatterns.some((re) => re.test(s)));
    if (hits.length > 0) found.set(relative(SRC, file), hits);
  }
  return found;
}

describe('the table of operations', () => {
  it('names the prefix of spec 9, and one path and method per operation', () => {
    expect(PUBLIC_PREFIX).toBe('/api/v1/public');
    const routes = NAMES.map((n) => `${OPERATIONS[n].method} ${OPERATIONS[n].path}`);
    expect(new Set(routes).size).toBe(NAMES.length);
  });

  it('(a) is the one file of src/ whose code writes a path of the public API', () => {
    const found = filesWithPaths(sourceFiles(SRC));
    expect([...found.keys()], JSON.stringify(Object.fromEntries(found), null, 1)).toEqual([TABLE]);
    // The scan sees every form: the table's own, hono's, a template's, with the prefix, in a longer message.
    const probe = (text: string) =>
      codeStrings(`f(${text});`).some((s) => pathPatterns.some((re) => re.test(s)));
    expect(probe("'/payments/:id/refund'")).toBe(true);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal, as the scan reads it
    expect(probe('`${base}/api/v1/public/payments/${id}/refund`')).toBe(true);
    expect(probe("'see GET /banks/sbp.'")).toBe(true);
    expect(probe("'/_simulator/payments/:id/succeed'")).toBe(false);
    expect(probe("'/events/:id/resend'")).toBe(false);
    // A comment is prose: not read as code.
    expect(codeStrings('f(); // GET /banks/sbp\n/** `POST /payouts` */\ng();')).toEqual([]);
  });

  it('(a) is the one file of src/ that names a path with an id, comments and TSDoc included', () => {
    const withId = NAMES.filter((n) => OPERATIONS[n].path.includes('{id}')).map(
      (n) =>
        // The row's path in its three spellings, not inside a control route (`/_simulator/payments/{id}/fail`).
        new RegExp(
          `(?:(?<![\\w.-])|(?<=/api/v1/public))${reEscape(OPERATIONS[n].path).replace('\\{id\\}', '(?:\\{id\\}|:id|\\$\\{\\w+\\})')}(?![\\w/])`,
        ),
    );
    const named = (text: string) => text.split('\n').filter((line) => withId.some((re) => re.test(line)));
    const found = sourceFiles(SRC)
      .filter((f) => relative(SRC, f) !== TABLE)
      .flatMap((f) => named(readFileSync(f, 'utf8')).map((line) => `${relative(SRC, f)}: ${line.trim()}`));
    expect(found).toEqual([]);
    expect(named('/** Refunds it (`POST /payments/{id}/refund`). */')).toHaveLength(1);
    expect(named('// GET /api/v1/public/payouts/:id')).toHaveLength(1);
    expect(named('/** `POST /_simulator/payments/{id}/fail`. */')).toEqual([]);
  });

  it("(b) is exactly the reference's routes under the public prefix, method and path", () => {
    const clock = new ManualClock(0);
    const deps = {
      domain: new Domain({ clock }),
      cabinet: {},
      simulator: {},
      adminToken: 'x',
      trustProxy: false,
    } as unknown as AppDeps;
    const routes = createApp(deps)
      .routes.filter((r) => r.method !== 'ALL' && r.path.startsWith('/api/v1/public/'))
      .map((r) => `${r.method} ${r.path}`);
    const rows = NAMES.map(
      (n) => `${OPERATIONS[n].method} /api/v1/public${OPERATIONS[n].path.replace(/\{(\w+)\}/g, ':$1')}`,
    );
    expect(routes.sort()).toEqual(rows.sort());
  });

  it("(c) every method of the client's resources sends rows of the table, and every row has a method", async () => {
    const ref = createReference({ clock: 'manual' });
    const seen: AttemptContext['operation'][] = [];
    let onSeen = () => {};
    const record: Middleware = (request, next, context) => {
      seen.push(context.operation);
      onSeen();
      return next(request);
    };
    const client = new PspClient({
      apiKey: ref.api_key,
      baseUrl: 'http://ref.test',
      fetch: (input, init) => ref.fetch(new Request(input, init)),
      middleware: [record],
      maxRetries: 0,
    });
    const { payment } = await client.payments.create({ amount: 1000 });
    const id = payment.id;
    const settle = (p: PromiseLike<unknown>) =>
      Promise.resolve(p).then(
        () => undefined,
        () => undefined,
      );
    // One call per method; a refusal is fine, what counts is which operations went out. A method named like a row
    // is called from its row: the id (any: a 404 still goes out) and the case's body (test/support/operation-cases.ts).
    const byRow = (Object.entries(OPERATIONS) as Array<[OperationName, OperationRow]>)
      .filter(([, row]) => row.answer)
      .map(([name, row]) => {
        const [ns, m] = name.split('.') as [string, string];
        const body = OPERATION_CASES[name].body?.();
        const args = [...(row.id ? [crypto.randomUUID()] : []), ...(body ? [JSON.parse(body)] : [])];
        const call = () => settle((client as any)[ns][m](...args));
        return [name, call] as const;
      });
    const calls: Record<string, () => Promise<unknown>> = {
      ...Object.fromEntries(byRow),
      'payments.waitFor': () => settle(client.payments.waitFor(id, { until: ['pending'] })),
      'payouts.waitFor': () => settle(client.payouts.waitFor(crypto.randomUUID())),
      'banks.clearCache': async () => client.banks.clearCache(),
      'events.stream': async () => {
        const stream = client.events.stream();
        const connected = new Promise<void>((resolve) => {
          onSeen = resolve;
        });
        const first = stream[Symbol.asyncIterator]().next();
        await connected;
        stream.close();
        await first;
      },
    };
    // Every method the resources have is called above: a new method must say here what it sends.
    const methods = Object.entries(client)
      .filter(([, v]) => typeof v === 'object' && v !== null)
      .flatMap(([ns, v]) => {
        const proto = Object.getPrototypeOf(v);
        const names =
          proto === Object.prototype
            ? Object.keys(v).filter((k) => typeof v[k] === 'function')
            : Object.getOwnPropertyNames(proto).filter((k) => k !== 'constructor');
        return names.map((m) => `${ns}.${m}`);
      });
    expect(methods.sort()).toEqual(Object.keys(calls).sort());

    const sentBy = new Map<string, Set<string>>();
    for (const [method, call] of Object.entries(calls)) {
      seen.length = 0;
      await call();
      sentBy.set(method, new Set(seen));
    }
    await ref.close();
    for (const [method, ops] of sentBy) {
      for (const op of ops) expect(NAMES, `${method} sent ${op}`).toContain(op);
      // A method named like an operation sends that operation.
      if (method in OPERATIONS) expect([...ops], method).toContain(method);
    }
    const sent = new Set([...sentBy.values()].flatMap((ops) => [...ops]));
    expect([...sent].sort()).toEqual([...NAMES].sort());
  });
});
