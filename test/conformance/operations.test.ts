// Issue 42 item 4: the kit's generic checks come from the table of operations. Every row gets them; a row added to
// the table gets them without a line of kit code; they pass against the reference and fail against a service that
// answers 200 to anything.
import { describe, expect, it } from 'vitest';
import { listChecks, runContract } from '../../src/conformance/index.js';
import { operationChecks } from '../../src/conformance/checks/operations.js';
import { createReference } from '../../src/reference/index.js';
import { OPERATIONS, type OperationRow } from '../../src/schemas/operations.js';

const ids = (rows: Record<string, OperationRow>) => operationChecks(rows).map((c) => c.id);

describe('the operations group', () => {
  it('has, for every row, no-key; unknown-id where it takes an id; bad-body where it takes a body; answer for a GET', () => {
    const want = Object.entries(OPERATIONS as Record<string, OperationRow>).flatMap(([name, row]) => [
      `operations.${name}.no-key`,
      ...(row.id ? [`operations.${name}.unknown-id`] : []),
      ...(row.input ? [`operations.${name}.bad-body`] : []),
      ...(row.method === 'GET' && row.answer ? [`operations.${name}.answer`] : []),
    ]);
    expect(ids(OPERATIONS)).toEqual(want);
    expect(listChecks(['operations']).map((c) => c.id)).toEqual(want);
  });

  it('gives a row added to the table its checks, with no kit code for it', () => {
    const throwaway: OperationRow = {
      method: 'GET',
      path: '/throwaways/{id}',
      id: 'payment',
      answer: 'Refund',
      what: 'refund',
      safe: true,
    };
    const added = ids({ ...OPERATIONS, 'throwaways.get': throwaway }).filter(
      (id) => !ids(OPERATIONS).includes(id),
    );
    expect(added).toEqual([
      'operations.throwaways.get.no-key',
      'operations.throwaways.get.unknown-id',
      'operations.throwaways.get.answer',
    ]);
    const [noKey] = operationChecks({ 'throwaways.get': throwaway });
    expect(noKey).toMatchObject({
      group: 'operations',
      section: '4',
      sends: 'GET /throwaways/{id} without an Authorization header',
    });
  });

  it('passes against the reference, and fails against a service that answers 200 to anything', async () => {
    const ref = createReference({ clock: 'manual' });
    try {
      const fetch: typeof globalThis.fetch = (input, init) => ref.fetch(new Request(input, init));
      const good = await runContract({
        baseUrl: 'http://ref.test',
        apiKey: ref.api_key,
        fetch,
        only: ['operations'],
      });
      expect(good.checks.filter((c) => c.outcome !== 'passed')).toEqual([]);
      const yes = async () =>
        new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
      const bad = await runContract({
        baseUrl: 'http://ref.test',
        apiKey: ref.api_key,
        fetch: yes,
        only: ['operations'],
      });
      expect(bad.counts.passed).toBe(0);
      expect(bad.counts.failed).toBe(bad.checks.length);
    } finally {
      await ref.close();
    }
  });
});
