// The kit's assertions: each failure carries what came back.
import { CheckFailure } from './outcomes.js';
import { type WireAnswer, show } from './kit.js';

/** Fails the check with `message` (and the answer it was looking at) unless `ok`. */
export function expect(ok: unknown, message: string, answer?: WireAnswer): asserts ok {
  if (!ok) throw new CheckFailure(message, answer?.observed);
}

/** The answer's status is `status` (or one of them). */
export function expectStatus(answer: WireAnswer, status: number | readonly number[], what: string): void {
  const allowed = typeof status === 'number' ? [status] : status;
  expect(
    allowed.includes(answer.status),
    `${what}: expected ${allowed.join(' or ')}, got ${answer.status}`,
    answer,
  );
}

const SNAKE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

/**
 * The answer is a refusal at `status` with the error body of spec 2.9: `{ error: { code, message } }`, both
 * present, `code` snake_case (and equal to `code` when the spec names one).
 */
export function expectError(
  answer: WireAnswer,
  status: number | readonly number[],
  what: string,
  code?: string,
): string {
  expectStatus(answer, status, what);
  const error = (answer.json as { error?: { code?: unknown; message?: unknown } | undefined } | undefined)
    ?.error;
  expect(
    typeof error?.code === 'string' && typeof error.message === 'string',
    `${what}: the error body is not { error: { code, message } } (spec 2.9)`,
    answer,
  );
  expect(SNAKE.test(error.code), `${what}: code ${show(error.code)} is not snake_case`, answer);
  if (code) expect(error.code === code, `${what}: expected code ${code}, got ${show(error.code)}`, answer);
  return error.code;
}

/** The field `name` of `value` (an object), for a message-friendly read. */
export function field(value: unknown, name: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[name] : undefined;
}
