/**
 * Pay out to a phone number over SBP: pick the recipient's bank from the directory, create the payout, and
 * follow it to its outcome.
 *
 *   npx tsx examples/sbp-payout.ts
 *
 * Uses PSP_API_KEY / PSP_BASE_URL when set, else the embedded reference service. In your app, import from
 * 'psp-sdk' instead of '../src/index.js'.
 */
import type { PspClient } from '../src/index.js';
import { isMain, runExample } from './support/run.js';

export interface PayoutRequest {
  /** Minor units. */
  amount: number;
  /** +7 and 10 digits. */
  phone: string;
  /** The recipient's bank as they name it, matched against the directory's English or local name. */
  bankName: string;
  fullName?: string;
  /** Your own id for this payout (a claim, a withdrawal request): makes retries safe across restarts. */
  reference: string;
}

export async function sbpPayout(
  client: PspClient,
  req: PayoutRequest,
  { pollMs = 500, timeoutMs = 60_000 }: { pollMs?: number; timeoutMs?: number } = {},
) {
  const { items } = await client.banks.list();
  const wanted = req.bankName.toLowerCase();
  const bank = items.find(
    (b) => b.name_en.toLowerCase().includes(wanted) || b.name.toLowerCase().includes(wanted),
  );
  if (!bank) throw new Error(`no SBP bank matches "${req.bankName}" in the directory of ${items.length}`);

  const res = await client.payouts.create(
    { amount: req.amount, phone: req.phone, bank_id: bank.member_id, full_name: req.fullName },
    { idempotencyKey: `payout-${req.reference}` },
  );
  const created = res.payout;

  // Webhooks are the guaranteed way to learn the outcome (see webhook-server-node.ts); polling is the fallback.
  const deadline = Date.now() + timeoutMs;
  let payout = created;
  while (payout.status === 'pending') {
    if (Date.now() > deadline) throw new Error(`payout ${payout.id} still pending after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
    payout = await client.payouts.get(payout.id);
  }
  return {
    payoutId: payout.id,
    bank: bank.name_en,
    status: payout.status,
    failReason: payout.fail_reason ?? null,
  };
}

if (isMain(import.meta.url)) {
  await runExample(({ client }) =>
    sbpPayout(client, {
      amount: 50_000,
      phone: '+79001234567',
      bankName: 'Sberbank',
      fullName: 'Ivan Petrov',
      reference: `W-${Date.now()}`,
    }),
  );
}
