// Spec 5.4: the request signature, X-PSP-Signature over the exact bytes.
import { requestSignature } from '../../internal/wire.js';
import { CODE } from '../../schemas/errors.js';
import { expect, expectError } from '../assert.js';
import { group } from '../check.js';
import { type Kit, type KitMerchant, show, type WireOptions } from '../kit.js';

const VALUE =
  'Value: HMAC-SHA256 over the raw request body bytes exactly as sent, keyed by the signing secret, hex-encoded. For a GET with an empty body the signed input is the empty string.';

/** A merchant whose terminal requires signatures (the cabinet's flag). */
async function signingMerchant(kit: Kit): Promise<KitMerchant> {
  const m = await kit.merchant();
  await kit.admin('PATCH', `/_cabinet/terminals/${m.terminal_id}`, { require_signature: true });
  return m;
}

/** payments.create on the wire with the key of `m`, signed (or not) as `options` say; by default `{ amount: 100 }`. */
const createAs = (kit: Kit, m: KitMerchant, options: WireOptions) =>
  kit.api('payments.create', { key: m.api_key, body: { amount: 100 }, ...options });

export const SIGNING_CHECKS = group('signing', [
  {
    id: 'signed-requests',
    section: '5.4',
    quote: VALUE,
    sends:
      "payments.create { amount: 137 } and a GET of that payment, both signed with the run's `thm_` secret (the SDK's signer)",
    expects: '201, then 200 with the payment just made: its id, amount 137 and order_id',
    needs: ['signing'],
    async run(kit) {
      const client = kit.client();
      const made = await kit.createPayment({ amount: 137, order_id: 'kit-signed' });
      // Read back: a service that answers anything (a stateless mock) shows another payment.
      const read = await kit.sdk('payments.get', () => client.payments.get(made.id));
      expect(
        read.id === made.id && read.amount === 137 && read.order_id === 'kit-signed',
        `the signed GET of payment ${made.id} shows ${show({ id: read.id, amount: read.amount, order_id: read.order_id })}, not the payment the signed POST made`,
      );
    },
  },
  {
    id: 'exact-bytes',
    section: '5.4',
    quote: VALUE,
    sends:
      'payments.create to a terminal that requires signatures, with a body in unusual spacing signed over its exact bytes',
    expects: '201',
    needs: ['control'],
    async run(kit) {
      const m = await signingMerchant(kit);
      const body = '{ "amount" :  100 ,\n  "order_id": "kit-bytes" }';
      const res = await createAs(kit, m, { body, signWith: m.signing_secret });
      expect(res.status === 201, `expected 201, got ${res.status}`, res);
      const id = (res.json as { payment?: { id?: string | undefined } | undefined }).payment?.id;
      if (id) kit.payments.set(id, { key: m.api_key, secret: m.signing_secret });
      const get = await kit.api('banks.list', { key: m.api_key, signWith: m.signing_secret });
      expect(get.status === 200, `a GET signed over the empty string: expected 200, got ${get.status}`, get);
    },
  },
  {
    id: 'signature-required',
    section: '5.4',
    quote:
      'When the terminal option "require signature" is on, a request without the header is rejected (code `signature_required`)',
    sends: 'payments.create without X-PSP-Signature to a terminal that requires signatures',
    expects: '400 or 401 `signature_required` (spec 7 gives both)',
    needs: ['control'],
    async run(kit) {
      const m = await signingMerchant(kit);
      const res = await createAs(kit, m, { signWith: null });
      expectError(res, [400, 401], 'an unsigned request', CODE.signature_required);
    },
  },
  {
    id: 'invalid-signature',
    section: '5.4',
    quote: 'a wrong signature is rejected (code `invalid_signature`)',
    sends:
      'payments.create to a terminal that requires signatures, signed with another secret, then signed over re-serialised JSON',
    expects: '400 `invalid_signature` for both',
    needs: ['control'],
    async run(kit) {
      const m = await signingMerchant(kit);
      const wrong = await createAs(kit, m, { signWith: 'thm_contractKitWrongSecret0000' });
      expectError(wrong, 400, 'a signature with another secret', CODE.invalid_signature);
      const sent = '{"amount": 100}';
      const reserialised = JSON.stringify(JSON.parse(sent));
      const res = await createAs(kit, m, {
        signWith: null,
        body: sent,
        headers: { 'x-psp-signature': requestSignature(m.signing_secret, reserialised) },
      });
      expectError(res, 400, 'a signature over other bytes than those sent', CODE.invalid_signature);
    },
  },
]);
