/**
 * mulberry32: a small seedable PRNG with a 2^32 period, plenty for a few draws per request or delivery, so the same
 * seed and the same calls give the same draws. The reference's one source of seeded randomness (fault rules'
 * `probability`, webhook chaos).
 *
 * @example const draw = prng(42); draw() < 0.3; // a coin flip, the same one for the same seed
 */
export function prng(seed: number): () => number {
  let a = (seed >>> 0) ^ Math.imul(Math.floor(seed / 2 ** 32) >>> 0, 0x9e3779b9);
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
