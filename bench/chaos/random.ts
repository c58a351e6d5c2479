/** A seeded generator (mulberry32): the same --seed gives the same kill times and the same mix of numbers. */
export type Rng = { next(): number; between(min: number, max: number): number };

export function rng(seed: number): Rng {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, between: (min, max) => min + next() * (max - min) };
}
