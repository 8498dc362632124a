import type * as z from 'zod/mini';
import { inputSchemas } from '../schemas/inputs.js';
import { OPERATIONS, type OperationRow, pathOf } from '../schemas/operations.js';
import type { responseSchemas } from '../schemas/resources.js';
import { ApiPromise } from './api-promise.js';
import type { RequestOptions } from './options.js';
import type { Transport } from './transport.js';
import { checkInput, idempotencyKeyIssue, idIssue, jsonBody, responseParser } from './validate.js';

type Answers = ReturnType<typeof responseSchemas>;
type Inputs = ReturnType<typeof inputSchemas>;
type Rows = typeof OPERATIONS;

/** The operations a method calls: those that answer JSON (the event stream has its own reader). */
export type MethodName = { [N in keyof Rows]: Rows[N] extends { answer: string } ? N : never }[keyof Rows];
/** The body a method of operation `N` takes (`never` when it takes none). */
type InputOf<N extends MethodName> = Rows[N] extends { input: infer I extends keyof Inputs }
  ? z.input<Inputs[I]>
  : never;
/** The parsed answer of operation `N`. */
type AnswerOf<N extends MethodName> = Rows[N] extends { answer: infer A extends keyof Answers }
  ? z.output<Answers[A]>
  : never;

/** What a call of a defined method takes: the path id, the body, the per-call options. */
export interface MethodArgs<I> {
  id?: string | undefined;
  input?: I | undefined;
  options?: RequestOptions | undefined;
}

/**
 * Turns a row of the table of operations (src/schemas/operations.ts) into the function a resource method calls:
 * it checks the id, the body and the caller's `Idempotency-Key` (a `PspValidationError` naming each bad field,
 * nothing sent), then sends the call through the transport and parses the answer with the client's strictness.
 * Checks run inside the promise, so a bad argument rejects rather than throws.
 *
 * @example
 * const create = defineMethod('payouts.create');
 * create(transport, { input, options });
 */
export function defineMethod<N extends MethodName>(
  name: N,
): (transport: Transport, args: MethodArgs<InputOf<N>>) => ApiPromise<AnswerOf<N>> {
  const row: OperationRow = OPERATIONS[name];
  const withId = row.id !== undefined;
  return (transport, { id, input, options }) =>
    new ApiPromise(
      (async () => {
        const issues = [
          ...(withId ? idIssue('id', id) : []),
          ...(row.idempotent ? idempotencyKeyIssue(options?.idempotencyKey) : []),
        ];
        checkInput(row.input ? inputSchemas()[row.input] : undefined, input, issues, transport.redact);
        return transport.request(
          {
            operation: name,
            template: row.path,
            method: row.method,
            path: withId ? pathOf(name, id) : row.path,
            body: row.input ? jsonBody(input) : undefined,
            idempotencyKey: row.idempotent ? (options?.idempotencyKey ?? crypto.randomUUID()) : undefined,
            safe: row.safe,
            options,
          },
          // The row's answer schema parses to this operation's answer type (the table is `as const`).
          responseParser(transport.strict, row.answer!, row.what!) as (json: unknown) => AnswerOf<N>,
        );
      })(),
    );
}
