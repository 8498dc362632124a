// Issue 43 item 1: psp-mcp's API tools are made from the table of operations. Every operation that answers JSON has
// its tool, and each fact of the tool is its row's: the name, the title (the description's summary), the id
// argument, the body's fields, the Idempotency-Key of a creation, read-only for a GET, the answer's schema.
import { describe, expect, it } from 'vitest';
import { apiTools } from '../../../src/mcp/tools/api.js';
import { OPERATION_DOCS } from '../../../src/openapi/operations.js';
import { OPERATIONS, type OperationName, type OperationRow } from '../../../src/schemas/operations.js';

const rows = (Object.entries(OPERATIONS) as Array<[OperationName, OperationRow]>).filter(
  ([, row]) => row.answer,
);

describe("psp-mcp's API tools", () => {
  it('are one per operation that answers JSON, named after it', () => {
    const names = apiTools.map((t) => t.name);
    for (const [name] of rows) expect(names).toContain(name.replace('.', '_'));
  });

  it.each(rows)('%s: every fact of its tool comes from its row', (name, row) => {
    const tool = apiTools.find((t) => t.name === name.replace('.', '_'))!;
    expect(tool.annotations.title).toBe(OPERATION_DOCS[name].summary);
    expect(tool.annotations.readOnlyHint).toBe(row.method === 'GET');
    expect(tool.creates).toBe(row.idempotent === true);
    const props = (tool.inputSchema as { properties: Record<string, unknown>; required?: string[] })
      .properties;
    expect('id' in props).toBe(row.id !== undefined);
    if (row.id) expect((tool.inputSchema as { required?: string[] }).required).toContain('id');
    expect('idempotency_key' in props).toBe(row.idempotent === true);
    // A body's fields join the arguments (the refund's `amount`, a payout's `phone`).
    if (row.input === 'CreatePayoutInput') expect(props).toHaveProperty('phone');
    if (row.input === 'CreateRefundInput') expect(props).toHaveProperty('amount');
    if (!row.input && !row.id && !row.idempotent) expect(Object.keys(props)).toEqual([]);
    const output = JSON.stringify(tool.outputSchema);
    if (row.idempotent) expect(output).toContain('idempotency_key');
  });
});
