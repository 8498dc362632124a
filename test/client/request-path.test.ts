import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pathIssue } from '../../src/client/validate.js';
import { PspValidationError } from '../../src/index.js';
import { BASE_URL, client, json, stubFetch } from './helpers.js';

// Issue 13.7: client.request() sent the API key wherever a dot segment led (`/../../_cabinet/merchants` reached
// `/api/_cabinet/merchants`). A path that could leave /api/v1/public is refused before anything is sent.

const PREFIX = '/api/v1/public/';

describe('client.request() stays below /api/v1/public', () => {
  it.each([
    '/../../_cabinet/merchants',
    '/..',
    '/payments/../../../x',
    '/./payments',
    '/payments/.',
    '/%2e%2e/%2e%2e/_cabinet/merchants',
    '/%2E%2E/x',
    '/.%2e/x',
    '/%2e./x',
    '/%2e/x',
    '/..;/x',
    '/..%2f..%2f_cabinet',
    '/..%2F_cabinet',
    '/..\\..\\_cabinet',
    '/\\evil.example/x',
    '//evil.example/x',
    'https://evil.example/x',
    'evil.example/x',
    '/banks?x=/../../',
    '/banks#/../..',
    '/.\t./x',
    '/..\n/x',
    '/%5c..%5cx',
    '',
  ])('refuses %j and sends nothing', async (path) => {
    const { fetch, seen } = stubFetch(() => json({}));
    const err = await client(fetch)
      .request('GET', path)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(PspValidationError);
    expect((err as PspValidationError).issues[0]?.field).toBe('path');
    expect(seen).toEqual([]);
  });

  it('accepts ordinary paths, including dots inside a segment', async () => {
    const { fetch, seen } = stubFetch(() => json({}));
    const c = client(fetch);
    for (const path of ['/banks/sbp', '/payments/abc.def', '/x/..a/b..', '/v2.1/things', '/a/%20b']) {
      await c.request('GET', path);
    }
    expect(seen.map((s) => s.url.slice(BASE_URL.length))).toEqual([
      '/api/v1/public/banks/sbp',
      '/api/v1/public/payments/abc.def',
      '/api/v1/public/x/..a/b..',
      '/api/v1/public/v2.1/things',
      '/api/v1/public/a/%20b',
    ]);
  });

  it('any path it accepts stays below the prefix after WHATWG URL normalisation (property)', () => {
    const unit = fc.constantFrom(
      '/',
      '.',
      '%',
      '2',
      'e',
      'E',
      'f',
      'F',
      '5',
      'c',
      '\\',
      '?',
      '#',
      ';',
      'a',
      ' ',
      '\t',
    );
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 16 }), (rest) => {
        const path = `/${rest}`;
        if (pathIssue(path).length > 0) return;
        const url = new URL(`${BASE_URL}/api/v1/public${path}`);
        expect(url.origin).toBe(BASE_URL);
        expect(`${url.pathname}/`.startsWith(PREFIX)).toBe(true);
        expect(url.search + url.hash).toBe('');
      }),
      { numRuns: 3000 },
    );
  });
});
