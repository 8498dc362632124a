import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { iso, isoOrNull } from '../../src/reference/domain/ids.js';

// iso() formats whole milliseconds itself (with a cached day prefix); it must always equal Date#toISOString.
describe('iso', () => {
  it('equals Date#toISOString for any time, whole or not, in or out of the fast range', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: 0, max: 253_402_300_799_999 }),
          fc.integer({ min: -8.64e15, max: 8.64e15 }),
          fc.double({ min: -1e13, max: 1e13, noNaN: true }),
        ),
        (ms) => {
          expect(iso(ms)).toBe(new Date(ms).toISOString());
        },
      ),
      { numRuns: 5_000 },
    );
  });

  it('is right across day boundaries and at the edges of a day, in any order', () => {
    const day = 86_400_000;
    const base = Date.UTC(2026, 10, 21);
    const times = [0, 1, day - 1, day, base - 1, base, base + 1, base + day - 1, 253_402_300_799_999];
    for (const ms of [...times, ...times.reverse()]) expect(iso(ms)).toBe(new Date(ms).toISOString());
  });

  it('throws what Date throws for an invalid time, and keeps null as null', () => {
    expect(() => iso(Number.NaN)).toThrow(RangeError);
    expect(() => iso(9e15)).toThrow(RangeError);
    expect(isoOrNull(null)).toBeNull();
    expect(isoOrNull(undefined)).toBeNull();
    expect(isoOrNull(0)).toBe('1970-01-01T00:00:00.000Z');
  });
});
