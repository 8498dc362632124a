// The promises every operation makes, derived from its row of the table of operations (src/schemas/operations.ts)
// and its words in the API description (src/openapi/operations.ts): without a key it is refused 401; a UUID never
// issued is 404 where the path takes an id; a body that is not an object is 400 where it takes one; a GET of an
// object that exists answers its schema. Every refusal is a status the description lists for the operation, with the
// error body of spec 2.9. A row added to the table gets these checks without a line here (issue 42 item 4).
import { ERROR_CODES } from '../../schemas/errors.js';
import {
  OPERATIONS,
  type OperationName,
  type OperationRow,
  PUBLIC_PREFIX,
} from '../../schemas/operations.js';
import { responseSchemas } from '../../schemas/resources.js';
import { parseOwn } from '../../schemas/issues.js';
import { OPERATION_DOCS, SHARED_REFUSALS } from '../../openapi/operations.js';
import { expect, expectError } from '../assert.js';
import type { Check } from '../check.js';
import type { Kit, WireAnswer, WireOptions } from '../kit.js';
import { makeObject } from './fixtures.js';

/** A UUIDv4 no service issued. */
const NEVER_ISSUED = '00000000-0000-4000-8000-000000000000';

/** The statuses the description lists for an operation: its successes, its refusals and the shared ones. */
function listedStatuses(name: string, row: OperationRow): Set<number> {
  const doc = (OPERATION_DOCS as Partial<Record<string, (typeof OPERATION_DOCS)[OperationName]>>)[name];
  const refusals = [...(doc?.refusals ?? []), ...SHARED_REFUSALS];
  const statuses = refusals.map((r) => ERROR_CODES[typeof r === 'string' ? r : r[0]].status);
  // A row the description does not have yet: the statuses its own facts imply.
  if (!doc) statuses.push(...(row.id ? [404] : []), ...(row.input ? [400] : []));
  return new Set([...Object.keys(doc?.ok ?? {}).map(Number), ...statuses]);
}

/**
 * The generic checks of every row of `rows` (default: the table of operations), as the `operations` group runs
 * them: ids `operations.<operation>.<promise>`.
 *
 * @example operationChecks().map((c) => c.id) // ['operations.payments.create.no-key', ...]
 */
export function operationChecks(rows: Readonly<Record<string, OperationRow>> = OPERATIONS): Check[] {
  return Object.entries(rows).flatMap(([name, row]) => {
    const section = (OPERATION_DOCS as Partial<Record<string, { section: string }>>)[name]?.section ?? '4';
    const listed = listedStatuses(name, row);
    const send = (kit: Kit, id: string | undefined, options: WireOptions) =>
      kit.send(row.method, `${PUBLIC_PREFIX}${row.path.replace('{id}', id ?? NEVER_ISSUED)}`, options);
    /** A refusal at `status` with the error body, at a status the description lists for the operation. */
    const refused = (res: WireAnswer, status: number, what: string) => {
      expect(listed.has(res.status), `${name} ${what}: ${res.status} is not a status listed for it`, res);
      expectError(res, status, `${name} ${what}`);
    };
    const base = { group: 'operations' as const, section };
    const checks: Check[] = [
      {
        ...base,
        id: `operations.${name}.no-key`,
        quote: 'Every protected request carries `Authorization: Bearer <API_KEY>`.',
        sends: `${row.method} ${row.path} without an Authorization header`,
        expects: '401 with the error body { error: { code, message } }',
        async run(kit) {
          refused(
            await send(kit, undefined, { key: null, ...(row.input ? { body: {} } : {}) }),
            401,
            'with no key',
          );
        },
      },
    ];
    if (row.id)
      checks.push({
        ...base,
        id: `operations.${name}.unknown-id`,
        quote: '404: not found.',
        sends: `${row.method} ${row.path} with a UUIDv4 never issued`,
        expects: '404 with the error body',
        async run(kit) {
          refused(await send(kit, NEVER_ISSUED, row.input ? { body: {} } : {}), 404, 'of an unknown id');
        },
      });
    if (row.input)
      checks.push({
        ...base,
        id: `operations.${name}.bad-body`,
        quote: '400: invalid request (validation errors).',
        sends: `${row.method} ${row.path} with a JSON array for a body${row.id ? ', on an object that exists' : ''}`,
        expects: '400 with the error body, and nothing done',
        async run(kit) {
          const id = row.id ? await makeObject(kit, row.id) : undefined;
          refused(await send(kit, id, { body: '[]' }), 400, 'with an array for a body');
        },
      });
    const answer = row.answer;
    if (row.method === 'GET' && answer)
      checks.push({
        ...base,
        id: `operations.${name}.answer`,
        quote: 'the answer of the operation, as section 4 shows it',
        sends: `${row.method} ${row.path}${row.id ? ` of a ${row.id} made for it` : ''}`,
        expects: `200 and a body valid against the description's schema ${answer}`,
        async run(kit) {
          const res = await send(kit, row.id ? await makeObject(kit, row.id) : undefined, {});
          expect(res.status === 200, `${name}: expected 200, got ${res.status}`, res);
          const parsed = parseOwn(responseSchemas(true)[answer], res.json);
          expect(
            parsed.success,
            `${name}: the answer does not fit ${answer}: ${parsed.success ? '' : parsed.error.issues[0]?.message}`,
            res,
          );
        },
      });
    return checks;
  });
}

/** The `operations` group: the generic checks of every operation of the table. */
export const OPERATION_CHECKS = operationChecks();
