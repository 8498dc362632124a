import type { LeaseClock, LeaseStore } from './lease-hold.js';
import { memoryLeaseKeys, oneKey } from './lease-keys.js';

/** The three steps of one lease in this process's memory, on `clock`: one key of the memory lease primitive. */
export function memoryStore(clock: LeaseClock): LeaseStore {
  return oneKey(memoryLeaseKeys(clock, { fenceMs: 1 }), 'lease');
}
