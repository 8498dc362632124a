/**
 * An optional numeric limit of an options object: the default when absent, else a whole number of at least `min`.
 * Throws a RangeError naming the option otherwise, so a misconfigured reference fails at construction.
 *
 * @example limit('maxStreams', options.maxStreams, 1000) // 1000 when absent
 */
export function limit(name: string, value: number | undefined, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min)
    throw new RangeError(`${name} must be an integer >= ${min}, got ${String(value)}`);
  return value;
}
