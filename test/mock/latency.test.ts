/**
 * The delay sampler and the seeded generator (issue 37): 10,000 draws of each distribution land within
 * tolerance of its parameters, every draw respects its cap, and a seed repeats its sequence. Pure: the
 * randomness is injected, nothing waits.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_DELAY_MS, sampleDelay, seededRandom, type DelaySpec } from '../../src/mock/index.js';
import { pieceEnds } from '../../src/serve/dribble.js';

const DRAWS = 10_000;

function draws(spec: DelaySpec, seed = 42): number[] {
  const random = seededRandom(seed);
  return Array.from({ length: DRAWS }, () => sampleDelay(spec, random));
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sd = (xs: number[]) => {
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1));
};
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

void test('a number is the delay as it is, rounded to whole milliseconds', () => {
  const r = seededRandom(1);
  assert.equal(sampleDelay(250, r), 250);
  assert.equal(sampleDelay(2.5, r), 3);
  assert.equal(sampleDelay(0, r), 0);
  assert.equal(sampleDelay(undefined, r), 0);
});

void test('fixed: every draw is its value', () => {
  assert.deepEqual(new Set(draws({ distribution: 'fixed', value: 120 })), new Set([120]));
});

void test('uniform: 10,000 draws lie in [min, max], mean and spread as the distribution says', () => {
  const xs = draws({ distribution: 'uniform', min: 100, max: 300 });
  assert.ok(xs.every((x) => x >= 100 && x <= 300));
  // Mean 200, standard deviation (max - min) / √12 ≈ 57.7.
  assert.ok(Math.abs(mean(xs) - 200) < 2, `mean ${mean(xs)}`);
  assert.ok(Math.abs(sd(xs) - 200 / Math.sqrt(12)) < 2, `sd ${sd(xs)}`);
  // Every part of the range is drawn: each fifth holds about a fifth of the draws.
  for (let lo = 100; lo < 300; lo += 40) {
    const share = xs.filter((x) => x >= lo && x < lo + 40).length / DRAWS;
    assert.ok(Math.abs(share - 0.2) < 0.02, `[${lo}, ${lo + 40}): ${share}`);
  }
});

void test('lognormal: 10,000 draws have the median and the log-spread asked for', () => {
  const xs = draws({ distribution: 'lognormal', median: 200, sigma: 0.5 });
  assert.ok(Math.abs(median(xs) - 200) / 200 < 0.03, `median ${median(xs)}`);
  const logs = xs.map((x) => Math.log(x));
  assert.ok(Math.abs(mean(logs) - Math.log(200)) < 0.02, `mean of logs ${mean(logs)}`);
  assert.ok(Math.abs(sd(logs) - 0.5) < 0.02, `sd of logs ${sd(logs)}`);
  // About 15.9 % of the draws lie above median · e^sigma (one sigma over).
  const over = xs.filter((x) => x > 200 * Math.exp(0.5)).length / DRAWS;
  assert.ok(Math.abs(over - 0.1587) < 0.015, `share over one sigma ${over}`);
});

void test('lognormal: the cap cuts every draw, and MAX_DELAY_MS cuts one without a cap', () => {
  const capped = draws({ distribution: 'lognormal', median: 200, sigma: 1, max: 400 });
  assert.ok(capped.every((x) => x <= 400));
  // P(Z > ln 2) ≈ 24 % of the draws are cut to the cap exactly.
  const atCap = capped.filter((x) => x === 400).length / DRAWS;
  assert.ok(Math.abs(atCap - 0.244) < 0.02, `share at the cap ${atCap}`);
  const wide = draws({ distribution: 'lognormal', median: 500_000, sigma: 3 });
  assert.ok(wide.every((x) => x >= 0 && x <= MAX_DELAY_MS));
  assert.ok(wide.includes(MAX_DELAY_MS));
});

void test('a seed repeats its sequence; another seed gives another', () => {
  const a = seededRandom(7);
  const b = seededRandom(7);
  const c = seededRandom(8);
  const sa = Array.from({ length: 100 }, a);
  assert.deepEqual(Array.from({ length: 100 }, b), sa);
  assert.notDeepEqual(Array.from({ length: 100 }, c), sa);
  assert.ok(sa.every((x) => x >= 0 && x < 1));
  // The largest seed (CHAOS_SEED_MAX) is a seed like any other.
  const top = seededRandom(0xffff_ffff);
  assert.ok(Array.from({ length: 100 }, top).every((x) => x >= 0 && x < 1));
});

void test('the dribble cuts a body into near-equal pieces that end at its length', () => {
  assert.deepEqual(pieceEnds(10, 5), [2, 4, 6, 8, 10]);
  assert.deepEqual(pieceEnds(10, 3), [3, 7, 10]);
  assert.deepEqual(pieceEnds(3, 3), [1, 2, 3]);
  assert.deepEqual(pieceEnds(1000, 1), [1000]);
});
