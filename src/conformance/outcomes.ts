// The ways a check ends other than passing: thrown by a check's body, by the kit it drives, and by the assertions,
// and told apart by run.ts. Apart from check.ts, which imports the kit's type: the kit throws these too.
import type { Observed } from './types.js';

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
