import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z as classic } from 'zod';
import * as z from 'zod/mini';
import { afterAll, describe, expect, it } from 'vitest';
import { PspValidationError } from '../../src/client/errors.js';
import { checkInput, responseParser } from '../../src/client/validate.js';
import { checkFaultRule } from '../../src/reference/faults/rule.js';
import { parseBody } from '../../src/reference/domain/validate.js';
import { inputSchemas } from '../../src/schemas/index.js';

// zod keeps its config on globalThis, shared by every copy of zod in a process (the SDK's bundled zod/mini
// included), and the classic API (`import { z } from 'zod'`, which many apps load) registers an English locale
// there on its first schema. The SDK's and the reference's messages must not change with it: a merchant's test
// that asserts 'unknown field "bogus"' must not break because another module of the app uses zod.

const root = join(import.meta.dirname, '..', '..');

afterAll(() => {
  z.config({ localeError: undefined });
});

function thrown(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    return error instanceof PspValidationError ? JSON.stringify(error.issues) : (error as Error).message;
  }
  throw new Error('expected a throw');
}

/** What the SDK and the reference say of a few bad inputs, from each place that parses. */
function messages(): string[] {
  const bankList = responseParser(true, 'BankList', 'bank list');
  return [
    thrown(() => parseBody(inputSchemas(true).CreatePaymentInput, { amount: 0, currency: 'rub', bogus: 1 })),
    thrown(() => parseBody(inputSchemas(true).CreatePayoutInput, { amount: 'x', phone: 7 })),
    thrown(() => checkInput(inputSchemas().CreatePaymentInput, { amount: 'x', metadata: 5 })),
    thrown(() => checkInput(inputSchemas().CreatePayoutInput, {})),
    thrown(() => bankList({ items: [{ bank_id: 1 }, 'x'] }, 200)),
    thrown(() => bankList({ items: 'x' }, 200)),
    JSON.stringify(checkFaultRule({ kind: 'reset', ratio: 1, match: { host: 'x' } })),
  ];
}

describe("messages with zod's classic API loaded in the same process", () => {
  it('are the words of the SDK, the same as without it', () => {
    z.config({ localeError: undefined });
    const own = messages();
    expect(own[0]).toContain('unknown field "bogus"');
    classic.string(); // registers zod's English locale globally, as any app that builds a classic schema does
    expect(z.config().localeError).toBeTypeOf('function'); // else this test tests nothing
    expect(messages()).toEqual(own);
  });
});

describe('every parse in src/ goes through parseOwn', () => {
  it('no `.safeParse(` in src/ outside src/schemas/issues.ts (an @example aside)', () => {
    const found: string[] = [];
    for (const entry of readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
      const file = join(entry.parentPath, entry.name);
      if (file.endsWith(join('schemas', 'issues.ts'))) continue;
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (line.includes('.safeParse(') && !/^\s*(\*|\/\/)/.test(line))
            found.push(`${file.slice(root.length + 1)}:${i + 1}`);
        });
    }
    expect(found).toEqual([]);
  });
});
