// What a check is, and the few ways it ends other than passing.
import type { CheckGroup, CheckInfo, Observed } from './types.js';
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

/** The service broke the rule: the check fails, showing what came back. */
export class CheckFailure extends Error {
  override readonly name = 'CheckFailure';
  constructor(
    message: string,
    readonly observed?: Observed,
  ) {
    super(message);
  }
}

/** The check cannot run here (a budget spent, a capability missing): reported `skipped` with the reason. */
export class CheckSkipped extends Error {
  override readonly name = 'CheckSkipped';
}

/** The check needs the reference's control surface for this step: reported `needs-control`. */
export class NeedsControl extends Error {
  override readonly name = 'NeedsControl';
}
