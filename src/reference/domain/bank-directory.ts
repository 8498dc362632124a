import type { SBPBank } from '../../schemas/resources.js';
import banks from './sbp-banks.json' with { type: 'json' };

/** The 30 SBP participants of `banks.list` (spec 4.7), in directory order. */
export const SBP_BANKS: readonly SBPBank[] = Object.freeze(
  (banks as SBPBank[]).map((b) =>
    Object.freeze({ member_id: b.member_id, name: b.name, name_en: b.name_en }),
  ),
);

const byId = new Map(SBP_BANKS.map((b) => [b.member_id, b]));

/** The directory entry for a `bank_id`, if the bank is an SBP participant. */
export function findBank(memberId: string): SBPBank | undefined {
  return byId.get(memberId);
}
