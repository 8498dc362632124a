import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import document from '../../openapi.json' with { type: 'json' };
import { inputSchemas } from '../../src/schemas/inputs.js';
import { LIMITS } from '../../src/schemas/limits.js';

// The leaf rules of the document's request bodies (src/openapi/leaves.ts) against the zod schemas the reference
// parses with: at each rule's edges, both accept or both refuse. A rule changed on one side only fails here.

const ajv = new Ajv2020({ strict: false });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
ajv.addSchema({ ...document, $id: 'doc' });
const verdicts = (component: 'CreatePaymentInput' | 'CreateRefundInput' | 'CreatePayoutInput') => {
  const doc = ajv.getSchema(`doc#/components/schemas/${component}`)!;
  const zod = inputSchemas(true)[component];
  return (value: unknown) => ({ doc: doc(value) as boolean, zod: zod.safeParse(value).success });
};

const s = (n: number) => 'x'.repeat(n);
// One character that is two UTF-16 units: both sides count it once (code points), as JSON Schema's maxLength does.
const e = (n: number) => '😀'.repeat(n);
const amounts = [1, 0, -1, 1.5, 2 ** 53 - 1, 2 ** 53, '100', null];
const currencies = ['RUB', 'USD', 'EUR', 'rub', 'RU', 'RUBB', 'GBP', 'XYZ', 1];
const urls = [
  'https://shop.example/return',
  'HTTP://shop.example',
  'ftp://shop.example',
  'mailto:a@b.c',
  'shopapp://orders/42',
  'javascript:alert(1)',
  'JavaScript:alert(1)',
  'data:text/html,x',
  'https://user:pass@shop.example/hook',
  'https://user@shop.example/hook',
  'https://shop.example/a@b',
  '/relative',
  'no scheme',
  `https://x.example/${s(LIMITS.urlMax)}`,
];

const EDGES: Record<string, { base: Record<string, unknown>; fields: Record<string, unknown[]> }> = {
  CreatePaymentInput: {
    base: { amount: 1000 },
    fields: {
      amount: amounts,
      currency: currencies,
      method: ['sbp', 'cards', 'any', 'cash', ''],
      order_id: [
        s(LIMITS.orderIdMax),
        s(LIMITS.orderIdMax + 1),
        e(LIMITS.orderIdMax),
        e(LIMITS.orderIdMax + 1),
        5,
      ],
      customer_id: [s(LIMITS.customerIdMax), s(LIMITS.customerIdMax + 1)],
      description: [s(LIMITS.descriptionMax), s(LIMITS.descriptionMax + 1)],
      return_url: urls,
      webhook_url: urls,
      metadata: [
        {},
        { a: 'b' },
        { a: 1 },
        { [s(LIMITS.metadataKeyMax)]: 'v' },
        { [s(LIMITS.metadataKeyMax + 1)]: 'v' },
        { k: s(LIMITS.metadataValueMax) },
        { k: s(LIMITS.metadataValueMax + 1) },
        { [e(LIMITS.metadataKeyMax)]: 'v' },
        { [e(LIMITS.metadataKeyMax + 1)]: 'v' },
        { k: e(LIMITS.metadataValueMax) },
        { k: e(LIMITS.metadataValueMax + 1) },
        JSON.parse('{"__proto__":"a","constructor":"b","prototype":"c"}'),
        Object.fromEntries(Array.from({ length: LIMITS.metadataMaxKeys }, (_, i) => [`k${i}`, 'v'])),
        Object.fromEntries(Array.from({ length: LIMITS.metadataMaxKeys + 1 }, (_, i) => [`k${i}`, 'v'])),
        [],
        'x',
      ],
      unknown_field: ['x'],
    },
  },
  CreateRefundInput: {
    base: {},
    fields: {
      amount: [...amounts, 0],
      reason: [s(LIMITS.reasonMax), s(LIMITS.reasonMax + 1), 1],
      extra: [1],
    },
  },
  CreatePayoutInput: {
    base: { amount: 500, phone: '+79991234567', bank_id: '100000000111' },
    fields: {
      amount: amounts,
      currency: currencies,
      method: ['payouts_sbp', 'sbp'],
      phone: ['+79991234567', '79991234567', '+7999123456', '+799912345678', '+7999123456a', '+89991234567'],
      bank_id: ['100000000111', '10000000011', '1000000001111', '10000000011a'],
      full_name: [s(LIMITS.fullNameMax), s(LIMITS.fullNameMax + 1)],
    },
  },
};

describe("the document's request bodies agree with the zod schemas at every rule's edges", () => {
  for (const [component, { base, fields }] of Object.entries(EDGES)) {
    it(component, () => {
      const check = verdicts(component as keyof typeof EDGES & 'CreatePaymentInput');
      expect(check(base)).toEqual({ doc: true, zod: true });
      let refused = 0;
      for (const [field, values] of Object.entries(fields)) {
        for (const value of values) {
          const v = check({ ...base, [field]: value });
          expect(v.doc, `${component}.${field} = ${JSON.stringify(value)?.slice(0, 80)}`).toBe(v.zod);
          if (!v.zod) refused++;
        }
      }
      // Each required field missing: both refuse.
      for (const field of Object.keys(base)) {
        const { [field]: _, ...rest } = base;
        expect(check(rest), `${component} without ${field}`).toEqual({ doc: false, zod: false });
      }
      expect(refused).toBeGreaterThan(3);
    });
  }
});

describe('the components say what their arrays hold', () => {
  // zod's JSON Schema knows a custom leaf (`arrayOf`, src/schemas/common.ts) by its JSON type only; the element
  // comes from LEAVES. A new array answer (a list) without its rule there would describe any array.
  it('every array of every component has `items`', () => {
    const bare: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (node === null || typeof node !== 'object') return;
      const schema = node as { type?: unknown; items?: unknown };
      const types = Array.isArray(schema.type) ? schema.type : [schema.type];
      if (types.includes('array') && schema.items === undefined) bare.push(at);
      for (const [k, v] of Object.entries(node)) walk(v, `${at}/${k}`);
    };
    walk(document.components.schemas, '#/components/schemas');
    expect(bare).toEqual([]);
  });
});
