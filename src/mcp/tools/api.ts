// The public API's tools: what PspClient does, one tool per operation (spec section 4), against the reference or a
// service alike. Each is made from its row of the table of operations (src/schemas/operations.ts): its name, the id
// argument, the body (openapi.json's component, checked by PspClient before anything is sent), the answer,
// read-only for a GET, the Idempotency-Key of a creation; its title is the API description's summary. Its words (what
// an agent reads, the sentence a person confirms) are in words.ts, where an operation added to the table needs none:
// it takes the document's summary and success answer, and a POST asks a person first.
import { OPERATION_DOCS } from '../../openapi/operations.js';
import type { MethodName } from '../../client/method.js';
import { OPERATIONS, type OperationRow } from '../../schemas/operations.js';
import type { PspClient } from '../../psp-client.js';
import { component, extend, text } from '../json-schema.js';
import { type Args, defineTool, idArg, idempotencyKeyArg, type Tool } from './define.js';
import { TOOL_OPERATIONS, type ToolWords, wordsOf } from './words.js';

const KEY_OUT = { idempotency_key: { type: 'string', description: 'The Idempotency-Key the call carried.' } };
const withKey = (name: string) => extend(component(name), KEY_OUT, ['idempotency_key']);

/** Calls operation `name` through PspClient's own method for it (`client.payments.refund(id, body, options)`). */
function call(
  client: PspClient,
  name: MethodName,
  row: OperationRow,
  { own, body }: { own: Args; body: object },
) {
  const [resource, method] = name.split('.') as [string, string];
  const fn = (client as unknown as Record<string, Record<string, (...args: unknown[]) => Promise<object>>>)[
    resource
  ]![method]!;
  const args = [
    ...(row.id ? [own.id] : []),
    ...(row.input ? [body] : []),
    ...(row.idempotent ? [{ idempotencyKey: own.idempotency_key }] : []),
  ];
  return fn.apply((client as unknown as Record<string, object>)[resource], args);
}

/** The tool of one operation, made from its row and its words. */
export function operationTool(name: MethodName, words: ToolWords): Tool {
  const row: OperationRow = OPERATIONS[name];
  const answer = row.answer!;
  return defineTool({
    name: name.replace('.', '_'),
    title: OPERATION_DOCS[name].summary,
    description: words.description,
    own: {
      ...(row.id ? { id: idArg(row.id) } : {}),
      ...words.guard?.own,
      ...(row.idempotent ? { idempotency_key: idempotencyKeyArg() } : {}),
    },
    required: row.id ? ['id'] : [],
    ...(row.input ? { body: row.input } : {}),
    output: row.idempotent ? withKey(answer) : answer,
    readOnly: row.method === 'GET',
    // Keyed: repeating it with the same idempotency_key has no further effect.
    idempotent: row.method === 'GET' || row.idempotent === true,
    creates: row.idempotent === true,
    moves: words.moves,
    refine: words.guard?.refine,
    preflight: words.guard?.preflight,
    async run(checked, { client }) {
      const answered = await call(client, name, row, checked);
      return row.idempotent ? { ...answered, idempotency_key: checked.own.idempotency_key } : { ...answered };
    },
  });
}

export const apiTools: Tool[] = [
  ...TOOL_OPERATIONS.map((name) => operationTool(name, wordsOf(name))),
  defineTool({
    name: 'banks_find',
    title: 'Find SBP banks by name',
    description: 'The SBP participants whose name (Russian or English) contains `name`, case-insensitive.',
    own: { name: text("Part of the bank's name.", { max: 100 }) },
    required: ['name'],
    output: 'BankList',
    readOnly: true,
    async run({ own }, { client }) {
      const needle = own.name.toLocaleLowerCase();
      const { items } = await client.banks.list();
      return {
        items: items.filter((b) => `${b.name}\n${b.name_en}`.toLocaleLowerCase().includes(needle)),
      };
    },
  }),
];
