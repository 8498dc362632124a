import util from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Redactor, redactSecrets } from '../../src/internal/redact.js';
import { createApiError, redactError } from '../../src/client/errors.js';
import { PspClient, PspConnectionError, PspResponseError, PspValidationError } from '../../src/index.js';

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
          // The client accepts exactly these forms, and redacts the errors it throws with its own redaction.
          expect(new PspClient({ apiKey, signingSecret, baseUrl: 'http://x.test' }).mode).toBe(mode);
          const redact = new Redactor([apiKey, signingSecret]);
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
          ].map((e) => redactError(e, redact));
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

const b64 = (s: string) => Buffer.from(s).toString('base64');
/** Each way a server, a proxy or a custom fetch may write a secret back (issue 13.3). */
const ENCODERS: Array<[string, (s: string) => string]> = [
  ['plain', (s) => s],
  ['bearer', (s) => `Bearer ${s}`],
  ['percent _', (s) => s.replaceAll('_', '%5F')],
  ['percent _ lower', (s) => s.replaceAll('_', '%5f')],
  ['percent all', (s) => [...s].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('')],
  ['encodeURIComponent', (s) => encodeURIComponent(s).replaceAll('_', '%5F')],
  ['percent twice', (s) => encodeURIComponent(encodeURIComponent(s).replaceAll('_', '%5F'))],
  ['json \\u005f', (s) => s.replaceAll('_', '\\u005f')],
  ['json all', (s) => [...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')],
  ['html', (s) => s.replaceAll('_', '&#95;')],
  ['base64', (s) => b64(s)],
  ['base64 bearer', (s) => b64(`Bearer ${s}`)],
  ['base64url', (s) => Buffer.from(s).toString('base64url')],
  ['basic', (s) => `Basic ${b64(`user:${s}`)}`],
  ['hex', (s) => Buffer.from(s).toString('hex')],
  ['upper', (s) => s.toUpperCase()],
];

describe('redaction holds in every encoding', () => {
  it("the client's own key and signing secret, echoed in code, X-Request-Id, message and a header", () => {
    fc.assert(
      fc.property(
        fc.constantFrom('test', 'live'),
        id6,
        secretPart,
        secretPart,
        fc.constantFrom(...ENCODERS),
        fc.boolean(),
        noise,
        noise,
        (mode, id, keySecret, thmSecret, [, encode], which, before, after) => {
          const apiKey = `sk_${mode}_${id}_${keySecret}`;
          const signingSecret = `thm_${thmSecret}`;
          new PspClient({ apiKey, signingSecret, baseUrl: 'http://x.test' });
          const redact = new Redactor([apiKey, signingSecret]);
          const encoded = encode(which ? apiKey : signingSecret);
          const echo = `${before}${encoded}${after}`;
          const e = redactError(
            createApiError({
              status: 400,
              body: { error: { code: echo, message: `got ${echo}` } },
              headers: new Headers({ 'x-request-id': encoded, 'x-echo': encoded }),
              attempts: 1,
            }),
            redact,
          );
          const drift = redactError(
            new PspResponseError('x', 200, [{ field: encoded, message: echo }]),
            redact,
          );
          const text = [
            allForms(e),
            e.code,
            e.requestId,
            JSON.stringify([...e.headers]),
            JSON.stringify(drift),
          ].join('\n');
          expect(text).not.toContain(keySecret);
          expect(text).not.toContain(thmSecret);
          expect(text).not.toContain(encoded);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('any secret of the forms sk_(test|live)_, thm_, whs_, adm_, between separators', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('sk_test_', 'sk_live_', 'thm_', 'whs_', 'adm_'),
        secretPart,
        fc.constantFrom(...ENCODERS),
        fc.constantFrom(' ', '"', "'", ',', '(', '[', '{', '|', '\n', ': '),
        noise,
        (prefix, secret, [, encode], sep, words) => {
          const encoded = encode(`${prefix}${secret}`);
          const text = redactSecrets(`${words}${sep}${encoded}${sep}${words}`);
          expect(text).not.toContain(secret);
          expect(text).not.toContain(encoded);
        },
      ),
      { numRuns: 400 },
    );
  });
});
