// Taken when this module loads, before a test can install fake timers (vitest's `vi.useFakeTimers` replaces the
// globals later): work that follows the service clock (webhook deliveries, answers) must not wait for a fake
// timer that only the test can advance.
const immediate = typeof globalThis.setImmediate === 'function' ? globalThis.setImmediate : undefined;
const timeout = globalThis.setTimeout;

/**
 * Runs `fn` in a later turn of the event loop, after pending I/O: `setImmediate` where the runtime has it, else a
 * zero timeout. The one way the reference escapes a test's fake timers.
 *
 * @example
 * nextTurn(() => startDueDeliveries());
 */
export function nextTurn(fn: () => void): void {
  if (immediate !== undefined) immediate(fn);
  else timeout(fn, 0);
}
