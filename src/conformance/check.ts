// What a check is: its listing, what it needs, its body (outcomes.ts has the ways it ends other than passing).
import type { CheckGroup, CheckInfo } from './types.js';
import type { Kit } from './kit.js';

/** What a check needs beyond the API key; without it the check does not run (see `run.ts`). */
export type Need = 'control' | 'signing' | 'webhooks';

/** A check: its listing, what it needs, and its body, which throws to fail. */
export interface Check extends CheckInfo {
  needs?: readonly Need[] | undefined;
  run(kit: Kit): Promise<void>;
}

/** Defines the checks of one group, ids prefixed by the group. */
export function group(
  name: CheckGroup,
  checks: Array<Omit<Check, 'group' | 'id'> & { id: string }>,
): Check[] {
  return checks.map((c) => ({ ...c, group: name, id: `${name}.${c.id}` }));
}
