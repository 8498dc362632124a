// Test values and steps the checks share: small amounts, a valid phone, a bank of the directory, the raw create, and
// an object of each kind a row's id names (the one maker of them: the kit's checks and the project's tests use it).
import { expect, expectStatus, field } from '../assert.js';
import type { Check } from '../check.js';
import { type Kit, show, type WireAnswer, type WireOptions } from '../kit.js';
import { CheckSkipped, NeedsControl } from '../outcomes.js';

/** One check as a group lists it (`group()` adds the group and prefixes the id). */
export type CheckSpec = Omit<Check, 'group' | 'id'> & { id: string };

/** A recipient phone of the right form (`+7` and 10 digits). */
export const PHONE = '+79990000000';

/** An RFC 3339 timestamp, as spec 2 writes every time. */
export const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)$/;

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

/** payments.create on the wire as `options` say, remembering a payment it made (with the run's key) for the clean-up. */
export async function createPaymentRaw(kit: Kit, options: WireOptions): Promise<WireAnswer> {
  const res = await kit.api('payments.create', options);
  const id = field(field(res.json, 'payment'), 'id');
  if (typeof id === 'string') kit.payments.set(id, { key: kit.apiKey, secret: kit.signingSecret });
  return res;
}

/** The payment `id` shows `amount` refunded, else the check fails with `message`. */
export async function expectRefunded(kit: Kit, id: string, amount: number, message: string): Promise<void> {
  const after = await kit.api('payments.get', id);
  expect(field(after.json, 'amount_refunded') === amount, message, after);
}

/**
 * The outcome a test-mode service plans for a payment or payout (its `simulator` field, spec 2.3) is `want`. Which
 * amount plans which outcome is the reference's rule, not the spec's: against the reference a mismatch fails (its
 * own plan broke); against another service the check needs control (the spec gives no public means to ask for an
 * outcome), and says what the service planned.
 */
export function expectPlanned(kit: Kit, planned: unknown, want: string, amount: number): void {
  if (planned === want) return;
  const what = `the service plans ${show(planned)} for amount ${amount}, not ${want}`;
  expect(!kit.control, `${what} (the reference's plan of outcomes by amount)`);
  throw new NeedsControl(
    `${what}: the spec gives no public means to ask for a ${want} outcome; run against psp-reference (its plan by amount) to check it`,
  );
}

/** payouts.create of `amount` to the test recipient; anything but 201 fails the check, naming `what`. */
export async function payout(kit: Kit, amount: number, what: string): Promise<WireAnswer> {
  const res = await kit.api('payouts.create', {
    body: { amount, phone: PHONE, bank_id: await bankId(kit), full_name: 'Kit Test' },
  });
  expectStatus(res, 201, what);
  return res;
}

/**
 * How an object of each kind a row's id names (`payment`, `payout`) is made over the public API, in the state a
 * read of it needs. A row whose id names a new kind needs its maker here, and nowhere else: the kit's generic checks
 * and the project's tests of every row (statuses, tenancy) make theirs with it.
 */
export const OBJECT_MAKERS: Readonly<Record<string, (kit: Kit) => Promise<string>>> = {
  payment: async (kit) => (await kit.createPayment({ amount: 100, order_id: 'kit-operations' })).id,
  async payout(kit) {
    const res = await payout(kit, 100, 'a payout to read back');
    const id = field(field(res.json, 'payout'), 'id');
    expect(typeof id === 'string', 'payouts.create did not answer a payout to read back', res);
    return id;
  },
};

/** The id of an object of `kind` that exists, made for a check (a payment the kit made is cancelled at the run's end). */
export async function makeObject(kit: Kit, kind: string): Promise<string> {
  const make = OBJECT_MAKERS[kind];
  // A kind of object the kit cannot make yet: the kit's reach, not the service's rule (add it to OBJECT_MAKERS).
  if (!make) throw new CheckSkipped(`the kit makes no ${kind} to try this on yet`);
  return make(kit);
}
