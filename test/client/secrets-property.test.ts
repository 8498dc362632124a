import util from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createApiError, PspClient, PspConnectionError, PspValidationError } from '../../src/index.js';

const SECRET_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._~+/=-';
// A fixed lead-in keeps a generated secret from being an ordinary word ("property") that a stack frame may hold.
const secretPart = fc
  .string({ unit: fc.constantFrom(...SECRET_CHARS), minLength: 8, maxLength: 48 })
  .map((s) => `Q7x${s}`);
const id6 = fc.string({
  unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789'),
  minLength: 6,
  maxLength: 6,
});
const noise = fc.string({ maxLength: 20 });

function allForms(e: unknown): string {
  return [
    String(e),
    (e as Error).stack,
    JSON.stringify(e),
    util.inspect(e, { depth: null, showHidden: true }),
  ].join('\n');
}

describe('redaction holds for any key and signing secret the client accepts', () => {
  it('a server message quoting them in any surroundings shows neither', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('test', 'live'),
        id6,
        secretPart,
        secretPart,
        noise,
        noise,
        (mode, id, keySecret, thmSecret, before, after) => {
          const apiKey = `sk_${mode}_${id}_${keySecret}`;
          const signingSecret = `thm_${thmSecret}`;
          // The client accepts exactly these forms.
          expect(new PspClient({ apiKey, signingSecret, baseUrl: 'http://x.test' }).mode).toBe(mode);
          const message = `${before}${apiKey}${after} ${before}${signingSecret}${after} Bearer ${apiKey}`;
          const errors = [
            createApiError({
              status: 400,
              body: { error: { code: 'bad_request', message } },
              headers: new Headers(),
              attempts: 1,
            }),
            createApiError({ status: 502, body: message, headers: new Headers(), attempts: 1 }),
            new PspConnectionError(`failed: ${message}`, { cause: new Error(message) }),
            new PspValidationError([{ field: 'x', message }]),
          ];
          for (const e of errors) {
            const text = allForms(e);
            expect(text).not.toContain(keySecret);
            expect(text).not.toContain(thmSecret);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keys and secrets outside that alphabet are refused at construction, without being echoed', () => {
    fc.assert(
      fc.property(
        id6,
        secretPart,
        fc.constantFrom('"', "'", ' ', ',', ';', ')', '}', ']', '`', 'é'),
        (id, s, bad) => {
          const secret = `${s}${bad}${s}`;
          for (const options of [
            { apiKey: `sk_test_${id}_${secret}` },
            { apiKey: `sk_test_${id}_${s}`, signingSecret: `thm_${secret}` },
          ]) {
            let err: unknown;
            try {
              new PspClient({ baseUrl: 'http://x.test', ...options });
            } catch (e) {
              err = e;
            }
            expect(err).toBeInstanceOf(PspValidationError);
            expect(allForms(err)).not.toContain(s);
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});
