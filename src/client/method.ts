import type * as z from 'zod/mini';
import { inputSchemas } from '../schemas/inputs.js';
import type { responseSchemas } from '../schemas/resources.js';
import { ApiPromise } from './api-promise.js';
import type { RequestOptions } from './options.js';
import type { Operation } from './operation.js';
import type { Transport } from './transport.js';
import { checkInput, idempotencyKeyIssue, idIssue, jsonBody, responseParser } from './validate.js';

type Answers = ReturnType<typeof responseSchemas>;
type Inputs = ReturnType<typeof inputSchemas>;

/**
 * One API method, as data: everything the scaffold of a call needs (checks, path, key, retry rule, parser).
 *
 * @example
 * const get = defineMethod({ operation: 'payouts.get', method: 'GET', path: '/payouts/{id}', answer: 'Payout', what: 'payout', safe: true });
 */
export interface MethodSpec<A extends keyof Answers, I extends keyof Inputs | undefined> {
  /** The operation's name, as middleware and telemetry see it (`AttemptContext.operation`). */
  operation: Operation;
  method: 'GET' | 'POST';
  /** Path template below `/api/v1/public`; `{id}` stands for the call's id, checked as a UUID first. */
  path: string;
  /** Name of the request body's schema in `inputSchemas()`; no body when absent. */
  input?: I;
  /** Name of the answer's schema in `responseSchemas()`. */
  answer: A;
  /** What the answer is called in a `PspResponseError` message (`payment`). */
  what: string;
  /** Sends an `Idempotency-Key`: the caller's, else a fresh UUIDv4, the same on every retry. */
  idempotent?: boolean;
  /** Whether repeating the request cannot duplicate an effect (GETs, keyed POSTs, cancel): only these retry. */
  safe: boolean;
}

/** What a call of a defined method takes: the path id, the body, the per-call options. */
export interface MethodArgs<I> {
  id?: string;
  input?: I;
  options?: RequestOptions | undefined;
}

/**
 * Turns a {@link MethodSpec} into the function a resource method calls: it checks the id, the body and the
 * caller's `Idempotency-Key` (a `PspValidationError` naming each bad field, nothing sent), then sends the call
 * through the transport and parses the answer with the client's strictness. Checks run inside the promise, so
 * a bad argument rejects rather than throws.
 *
 * @example
 * const create = defineMethod({ operation: 'payouts.create', method: 'POST', path: '/payouts',
 *   input: 'CreatePayoutInput', answer: 'CreatePayoutResponse', what: 'payout creation', idempotent: true, safe: true });
 * create(transport, { input, options });
 */
export function defineMethod<A extends keyof Answers, I extends keyof Inputs | undefined = undefined>(
  spec: MethodSpec<A, I>,
): (
  t: Transport,
  args: MethodArgs<I extends keyof Inputs ? z.input<Inputs[I]> : never>,
) => ApiPromise<z.output<Answers[A]>> {
  const withId = spec.path.includes('{id}');
  return (t, { id, input, options }) =>
    new ApiPromise(
      (async () => {
        const issues = [
          ...(withId ? idIssue('id', id) : []),
          ...(spec.idempotent ? idempotencyKeyIssue(options?.idempotencyKey) : []),
        ];
        checkInput(spec.input ? inputSchemas()[spec.input] : undefined, input, issues);
        return t.request(
          {
            operation: spec.operation,
            template: spec.path,
            method: spec.method,
            path: withId ? spec.path.replace('{id}', id as string) : spec.path,
            body: spec.input ? jsonBody(input) : undefined,
            idempotencyKey: spec.idempotent ? (options?.idempotencyKey ?? crypto.randomUUID()) : undefined,
            safe: spec.safe,
            options,
          },
          responseParser(t.strict, spec.answer, spec.what),
        );
      })(),
    );
}
