// The one table of what the tests need to know of each operation beyond its row (issue 43 item 1): the statuses
// spec section 4 names for it, what else the reference may answer, and how a successful call is set up (an object of
// the row's id kind, made by the contract kit's maker, unless the call needs another state). The
// OpenAPI document's test, the statuses test and the property test read it; a new row fails tsc until it has its
// entry here (it is a Record of every name), and nowhere else.
import { OPERATIONS, type OperationName, type OperationRow } from '../../src/schemas/operations.js';

/** What a test can make in its own reference, for an operation's successful call. */
export interface CaseLab {
  /** An object of `kind` (the row's id), made by the contract kit's maker of it (test/support/object-maker.ts). */
  make(kind: string): Promise<string>;
  /** A succeeded payment's id. */
  succeeded(): Promise<string>;
}

/** A valid payout body (JSON text), `extra` fields merged in. */
export const payoutBody = (extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ amount: 500, phone: '+79991234567', bank_id: '100000000111', ...extra });

/** One operation's entry. */
export interface OperationCase {
  /** The statuses spec section 4's text names for it: the document must list each. */
  spec: readonly number[];
  /**
   * What else the reference may answer, beyond `spec` and the refusals of every request (400, 401, 403, 429):
   * a replay's 200, 5.6's 409. Default none.
   */
  also?: readonly number[];
  /**
   * The id of an object in the state a successful call needs, where the made one (`lab.make` of the row's id) is
   * not in it: a succeeded payment to refund.
   */
  id?: ((lab: CaseLab) => Promise<string>) | undefined;
  /** The body of a successful call. */
  body?: (() => string) | undefined;
}

/** The refusals every request can meet (sections 5, 7, 8). */
export const EVERY_REQUEST = [400, 401, 403, 429] as const;

export const OPERATION_CASES: Record<OperationName, OperationCase> = {
  'payments.create': { spec: [201, 200, 400, 401, 403, 409, 429], body: () => '{"amount":1000}' },
  'payments.get': { spec: [200, 404] },
  'payments.cancel': { spec: [200, 404, 409] },
  'payments.refund': {
    spec: [201, 404, 409, 422],
    also: [200],
    id: (l) => l.succeeded(),
    body: () => '{"amount":100}',
  },
  'payouts.create': { spec: [201, 200, 400, 422], also: [409], body: () => payoutBody() },
  'payouts.get': { spec: [200, 404] },
  'banks.list': { spec: [200] },
  'events.stream': { spec: [200] },
};

/** The id of a successful call of `name`: its case's, else an object of its row's kind; none without an id. */
export const idOf = async (name: OperationName, lab: CaseLab): Promise<string | undefined> => {
  const kind = (OPERATIONS[name] as OperationRow).id;
  const made = OPERATION_CASES[name].id;
  return made ? made(lab) : kind ? lab.make(kind) : undefined;
};

/** Every status an operation may answer: its spec statuses, the refusals of every request, and its `also`. */
export const answersOf = (name: OperationName): number[] => {
  const c = OPERATION_CASES[name];
  return [...new Set([...EVERY_REQUEST, ...c.spec, ...(c.also ?? [])])].sort((a, b) => a - b);
};
