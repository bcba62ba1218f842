/**
 * Pure latency helpers: the delay a `delay` spec draws (a number, or a fixed, uniform or lognormal
 * distribution cut at its cap) and a seeded pseudo-random source, so that a chaos run repeats. Every
 * function takes its randomness as an argument; none reads a clock or Math.random itself.
 */
import { MAX_DELAY_MS, type DelaySpec } from './latency-schema.js';

/** A source of numbers in [0, 1), as Math.random. */
export type Random = () => number;

/**
 * A seeded generator (mulberry32: 32 bits of state, period 2^32, fast and well spread for this use;
 * not for secrets). The same seed gives the same sequence on every platform.
 */
export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard normal draw (Box–Muller); `random` is called twice. */
function normal(random: Random): number {
  // 1 - u is in (0, 1]: the logarithm stays finite.
  const u = 1 - random();
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/**
 * The delay, in whole milliseconds, that `spec` gives for one request: a number as it is, a fixed
 * distribution its value, a uniform one a draw in [min, max], a lognormal one `median · e^(sigma · Z)`
 * cut at `max` (default MAX_DELAY_MS). Never negative, never over MAX_DELAY_MS.
 */
export function sampleDelay(spec: DelaySpec | undefined, random: Random): number {
  let ms: number;
  if (spec === undefined) return 0;
  if (typeof spec === 'number') ms = spec;
  else if (spec.distribution === 'fixed') ms = spec.value;
  else if (spec.distribution === 'uniform') ms = spec.min + random() * (spec.max - spec.min);
  else ms = Math.min(spec.max ?? MAX_DELAY_MS, spec.median * Math.exp(spec.sigma * normal(random)));
  return Math.round(Math.min(MAX_DELAY_MS, Math.max(0, ms)));
}

/** Whether `spec` can give a delay above 0 (a rule without one answers without a turn of the loop). */
export function mayDelay(spec: DelaySpec | undefined): boolean {
  if (spec === undefined) return false;
  if (typeof spec === 'number') return Math.round(spec) > 0;
  if (spec.distribution === 'fixed') return Math.round(spec.value) > 0;
  if (spec.distribution === 'uniform') return Math.round(spec.max) > 0;
  return spec.median > 0 && (spec.max ?? MAX_DELAY_MS) > 0;
}
