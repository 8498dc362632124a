import util from 'node:util';
import { describe, expect, it } from 'vitest';
import { formsOnly, Redactor, redactSecrets } from '../../src/internal/redact.js';

const KEY = 'sk_test_ab12cd_S3cretPartOfTheKey0123456789';
const OTHER = 'sk_test_zz99yy_Wq7mLx2VnB9hTgY4kD8rJ3';
const THM = 'thm_SigningSecretValue_abcdefghij0123';
const bare = (s: string) => s.replace(/^(sk_test_\w{6}|thm)_/, '');

describe('Redactor: one per owner of secrets', () => {
  it('knows its own secrets without their prefix, and no other', () => {
    const mine = new Redactor([KEY, THM]);
    const theirs = new Redactor([OTHER]);
    expect(mine.text(`x ${bare(KEY)} ${bare(THM)} ${bare(OTHER)}`)).toBe(`x *** *** ${bare(OTHER)}`);
    expect(theirs.text(`x ${bare(KEY)} ${bare(OTHER)}`)).toBe(`x ${bare(KEY)} ***`);
    // The redaction of text nobody owns knows the forms only.
    expect(redactSecrets(`x ${bare(KEY)} ${KEY}`)).toBe(`x ${bare(KEY)} sk_test_***`);
    expect(formsOnly.text(bare(KEY))).toBe(bare(KEY));
  });

  it('shows none of its secrets when inspected or serialised', () => {
    const shown =
      util.inspect(new Redactor([KEY, THM]), { showHidden: true, depth: null }) +
      JSON.stringify({ r: new Redactor([KEY]) });
    for (const s of [KEY, THM, bare(KEY).slice(0, 8), bare(THM).slice(0, 8)]) expect(shown).not.toContain(s);
  });

  it('takes a secret of any visible characters (an admin token) as text, not as a pattern', () => {
    const token = 'adm_(a+)*[x]{2}|^$.?\\/-Qz9wK3mTn8';
    const redact = new Redactor([token]);
    const out = redact.text(`got ${token.slice(4)} and aaaa`);
    expect(out).toMatch(/^got \*+ and aaaa$/);
    for (let i = 4; i + 8 <= token.length; i++) expect(out).not.toContain(token.slice(i, i + 8));
  });

  it('leaves a secret under 8 characters past its prefix to its form', () => {
    expect(new Redactor(['thm_short']).text('short thm_short')).toBe('short thm_***');
  });
});
