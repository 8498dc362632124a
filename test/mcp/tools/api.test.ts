// Issue 43 item 1: psp-mcp's API tools are made from the table of operations. Every operation that answers JSON has
// its tool, and each fact of the tool is its row's: the name, the title (the description's summary), the id
// argument, the body's fields, the Idempotency-Key of a creation, read-only for a GET, the answer's schema.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiTools, operationTool } from '../../../src/mcp/tools/api.js';
import { toolsTable, wordsOf } from '../../../src/mcp/tools/words.js';
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

  // A new operation's tool needs no words here: the document's are used, and a POST asks a person first.
  it("an operation without words of its own: the document's summary, and a POST asks first", () => {
    const read = operationTool('payouts.get', wordsOf('payouts.get', {}));
    expect(read.description).toContain(OPERATION_DOCS['payouts.get'].summary);
    expect(read.description).toContain('(spec 4.6)');
    expect(read.moves).toBeUndefined();
    expect(read.annotations.destructiveHint).toBe(false);
    const pay = operationTool('payouts.create', wordsOf('payouts.create', {}));
    expect(pay.description).toContain('Idempotency-Key');
    expect(pay.annotations.destructiveHint).toBe(true);
    const sentence = pay.moves!({
      own: { idempotency_key: 'k-1' },
      body: { amount: 500, phone: '+79001234567', bank_id: '100000000111' },
    });
    expect(sentence).toBe(
      'Create an SBP payout, with {"amount":500,"phone":"+79001234567","bank_id":"100000000111"} (Idempotency-Key k-1).',
    );
    const cancel = operationTool('payments.cancel', wordsOf('payments.cancel', {}));
    expect(cancel.moves!({ own: { id: 'p-1' }, body: {} })).toBe('Cancel a pending payment: payment p-1.');
  });

  // Issue 43 item 3: the page's table is the tools' own (written by `npm run build:openapi`), so a new operation's
  // tool, and whether it asks first, reach docs/mcp.md without a hand edit.
  it("docs/mcp.md's table of API tools is the one the tools make", () => {
    const page = readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', 'mcp.md'), 'utf8');
    expect(page).toContain(`<!-- api tools -->\n\n${toolsTable()}\n\n<!-- /api tools -->`);
    expect(toolsTable()).toContain('| `payouts_create` | an SBP payout to a phone (4.5); **asks first** |');
    expect(toolsTable()).toContain('| `payouts_get` | a payout (4.6) |');
  });
});
