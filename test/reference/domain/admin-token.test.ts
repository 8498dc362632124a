import { describe, expect, test } from 'vitest';
import { ADMIN_TOKEN_MIN_LENGTH } from '../../../src/reference/domain/admin-token.js';
import { parseTriggerArgs } from '../../../src/reference/cli/trigger-args.js';
import { createReference } from '../../../src/reference/service.js';
import { expectError, setup } from '../helpers.js';

const SHORT = ['', 'x', 'a'.repeat(ADMIN_TOKEN_MIN_LENGTH - 1)];

describe('one rule for an admin token', () => {
  test('a snapshot whose admin_token is empty or short is refused, by restore and at start', async () => {
    const { ref, admin } = setup();
    const before = JSON.stringify(await ref.control.snapshot());
    for (const token of SHORT) {
      const doc = { ...(await ref.control.snapshot()), admin_token: token };
      const r = await admin('/_simulator/restore', { body: doc });
      expectError(r, 400, 'bad_request');
      expect(r.body.error.message).toContain(
        `admin_token: must be at least ${ADMIN_TOKEN_MIN_LENGTH} characters`,
      );
      expect(() => createReference({ state: doc })).toThrow(/admin_token/);
    }
    expect(JSON.stringify(await ref.control.snapshot())).toBe(before);
    // The reference's own token passes its own rule, so every snapshot it writes can be read back.
    const own = await ref.control.snapshot();
    expect(() => createReference({ state: own }).close()).not.toThrow();
    await ref.close();
  });

  test('psp-reference trigger refuses the same tokens from --admin-token and PSP_ADMIN_TOKEN', async () => {
    const base = [
      'payment.succeeded',
      '--base-url',
      'http://127.0.0.1:4010',
      '--api-key',
      'sk_test_abcdef_secret',
    ];
    for (const token of SHORT.slice(1)) {
      expect(() => parseTriggerArgs([...base, '--admin-token', token], {})).toThrow(
        /--admin-token must be at least/,
      );
      expect(() => parseTriggerArgs(base, { PSP_ADMIN_TOKEN: token })).toThrow(
        /--admin-token must be at least/,
      );
    }
    const ref = createReference();
    expect(parseTriggerArgs([...base, '--admin-token', ref.admin_token], {})).toMatchObject({
      adminToken: ref.admin_token,
    });
    await ref.close();
  });
});
