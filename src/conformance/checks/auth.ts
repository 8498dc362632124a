// Spec 5.1-5.3 and 7: who may call, and how a refusal looks.
import { CODE } from '../../schemas/errors.js';
import { expect, expectError } from '../assert.js';
import { group } from '../check.js';

const KEY_QUOTE = 'Every protected request carries `Authorization: Bearer <API_KEY>`.';

export const AUTH_CHECKS = group('auth', [
  {
    id: 'unknown-key',
    section: '5.1',
    quote: KEY_QUOTE,
    sends: 'banks.list with a well-formed test key that was never issued',
    expects: '401 with the error body',
    async run(kit) {
      const res = await kit.api('banks.list', { key: 'sk_test_k1tk1t_contractKitNeverIssued0' });
      expectError(res, 401, 'an unknown key');
    },
  },
  {
    id: 'malformed-authorization',
    section: '5.1',
    quote: KEY_QUOTE,
    sends: 'banks.list with `Authorization: Basic <the key>` and with `Bearer not-a-key`',
    expects: '401 for both',
    async run(kit) {
      const basic = await kit.api('banks.list', {
        key: null,
        headers: { authorization: `Basic ${btoa(`${kit.apiKey}:`)}` },
      });
      expectError(basic, 401, 'a Basic credential');
      expectError(await kit.api('banks.list', { key: 'not-a-key' }), 401, 'a key of no form');
    },
  },
  {
    id: 'test-key-works',
    section: '5.2',
    quote: '`sk_test_<6 chars>_<secret>` goes to the simulator and is always available',
    sends: "payments.create with the run's test key, amount 100",
    expects: '201 with `mode: "test"` and a `simulator` outcome',
    async run(kit) {
      const res = await kit.api('payments.create', { body: { amount: 100, order_id: 'kit-auth' } });
      expect(res.status === 201, `expected 201, got ${res.status}`, res);
      const json = res.json as {
        payment?: { id?: string | undefined } | undefined;
        mode?: unknown;
        simulator?: unknown;
      };
      if (json.payment?.id) kit.payments.set(json.payment.id, { key: kit.apiKey, secret: kit.signingSecret });
      expect(json.mode === 'test', `mode is ${String(json.mode)}, not test`, res);
      expect(typeof json.simulator === 'string', 'a test payment names its planned `simulator` outcome', res);
    },
  },
  {
    id: 'ip-not-allowed',
    section: '5.3',
    quote: 'A request from another address is rejected with 403 `ip_not_allowed`.',
    sends: 'banks.list with the key of a merchant whose allow-list holds only 192.0.2.1 (the cabinet)',
    expects: '403 `ip_not_allowed`',
    needs: ['control'],
    async run(kit) {
      const m = await kit.merchant({ ip_allow_list: ['192.0.2.1'] });
      const res = await kit.api('banks.list', { key: m.api_key, signWith: null });
      expectError(res, 403, 'a request from outside the allow-list', CODE.ip_not_allowed);
    },
  },
  {
    id: 'blocked',
    section: '7',
    quote: '| 403 | aml_blocked | access forbidden for this reason |',
    sends: 'payments.create with the key of a merchant the cabinet blocked (`aml_blocked`)',
    expects: '403 `aml_blocked`, and nothing created',
    needs: ['control'],
    async run(kit) {
      const m = await kit.merchant({ block: CODE.aml_blocked });
      const res = await kit.api('payments.create', {
        key: m.api_key,
        signWith: null,
        body: { amount: 100 },
      });
      expectError(res, 403, 'a blocked merchant', CODE.aml_blocked);
    },
  },
  {
    id: 'revoked-key',
    section: '5.1',
    quote: 'several keys may exist and each can be revoked',
    sends: 'banks.list with a second key of a cabinet merchant, before and after it is revoked',
    expects: '200, then 401',
    needs: ['control'],
    async run(kit) {
      const m = await kit.merchant();
      const made = (await kit.admin('POST', `/_cabinet/terminals/${m.terminal_id}/api-keys`, {
        mode: 'test',
      })) as { id: string; api_key: string };
      const before = await kit.api('banks.list', { key: made.api_key, signWith: null });
      expect(before.status === 200, `a new key: expected 200, got ${before.status}`, before);
      await kit.admin('DELETE', `/_cabinet/api-keys/${made.id}`);
      const after = await kit.api('banks.list', { key: made.api_key, signWith: null });
      expectError(after, 401, 'a revoked key');
    },
  },
]);
