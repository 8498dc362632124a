// Test values the checks share: small amounts, a valid phone, a bank of the directory.
import { expect } from '../assert.js';
import type { Kit } from '../kit.js';

/** A recipient phone of the right form (`+7` and 10 digits). */
export const PHONE = '+79990000000';

const banks = new WeakMap<Kit, string>();

/** The `member_id` of the first bank of the directory (read once per run). */
export async function bankId(kit: Kit): Promise<string> {
  const known = banks.get(kit);
  if (known) return known;
  const res = await kit.api('banks.list');
  const first = (res.json as { items?: Array<{ member_id?: unknown }> | undefined } | undefined)?.items?.[0]
    ?.member_id;
  expect(typeof first === 'string', 'the bank directory has no first member_id', res);
  banks.set(kit, first);
  return first;
}
