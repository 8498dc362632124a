// The input types are inferred from the zod schemas of src/schemas/inputs.ts; the TSDoc written on each field of
// the schema's shape is what editors and the API reference show on the inferred property. Every field has it, and
// `currency` completes the codes the service knows while accepting any string.
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { CreatePaymentInput, CreatePayoutInput, CreateRefundInput } from '../../src/index.js';

const root = join(import.meta.dirname, '..', '..');

function properties(name: string): Array<{ name: string; type: string; doc: string }> {
  const entry = join(root, 'src', 'index.ts');
  const program = ts.createProgram([entry], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
  const symbol = checker.getExportsOfModule(moduleSymbol).find((s) => s.name === name)!;
  const type = checker.getDeclaredTypeOfSymbol(checker.getAliasedSymbol(symbol));
  return type.getProperties().map((p) => ({
    name: p.name,
    type: checker.typeToString(checker.getTypeOfSymbol(p)),
    doc: ts.displayPartsToString(p.getDocumentationComment(checker)),
  }));
}

describe('the input types of the API', () => {
  const inputs = ['CreatePaymentInput', 'CreateRefundInput', 'CreatePayoutInput'].map(
    (name) => [name, properties(name)] as const,
  );

  it.each(inputs)('%s: every field carries TSDoc', (_name, props) => {
    expect(props.length).toBeGreaterThan(1);
    expect(props.filter((p) => p.doc.length < 20).map((p) => p.name)).toEqual([]);
  });

  it('amounts say they are minor units', () => {
    for (const [, props] of inputs) {
      const amount = props.find((p) => p.name === 'amount');
      expect(amount?.doc).toMatch(/minor units/);
    }
  });

  it('currency completes the known codes and accepts any other', () => {
    const [, payment] = inputs[0]!;
    expect(payment.find((p) => p.name === 'currency')?.type).toBe(
      '"RUB" | "USD" | "EUR" | (string & {}) | undefined',
    );
    const [, payout] = inputs[2]!;
    expect(payout.find((p) => p.name === 'currency')?.type).toBe('"RUB" | (string & {}) | undefined');
    expectTypeOf<'GBP'>().toExtend<NonNullable<CreatePaymentInput['currency']>>();
    expectTypeOf<'RUB'>().toExtend<NonNullable<CreatePayoutInput['currency']>>();
    expectTypeOf<CreateRefundInput>().toHaveProperty('amount');
  });
});
