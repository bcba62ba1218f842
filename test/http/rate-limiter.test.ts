/**
 * Unit tests of the fixed-window limiter and its headers (src/http/rate-limit.ts): limit − 1, limit,
 * limit + 1 in a window, the reset at the window's end, separate keys, Retry-After.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryRateLimiter, rateLimitHeaders } from '../../src/http/index.js';

void describe('MemoryRateLimiter', () => {
  const start = Date.UTC(2026, 4, 15, 2, 46, 15);

  void it('allows limit hits in a window and refuses the next, with the remaining count', async () => {
    const limiter = new MemoryRateLimiter(() => start);
    try {
      const decisions = [1, 2, 3, 4].map(() => limiter.hit('ip', 3, 60_000));
      assert.deepEqual(
        decisions.map((d) => [d.allowed, d.remaining]),
        [
          [true, 2],
          [true, 1],
          [true, 0],
          [false, 0],
        ],
      );
      assert.ok(decisions.every((d) => d.limit === 3));
      // Fixed windows aligned on the clock: the minute ends at 02:47:00.
      assert.ok(decisions.every((d) => d.resetAt === Date.UTC(2026, 4, 15, 2, 47, 0) / 1000));
    } finally {
      await limiter.close();
    }
  });

  void it('starts a new window once the old one is over', async () => {
    let t = start;
    const limiter = new MemoryRateLimiter(() => t);
    try {
      limiter.hit('ip', 1, 60_000);
      assert.equal(limiter.hit('ip', 1, 60_000).allowed, false);
      t = Date.UTC(2026, 4, 15, 2, 47, 0) - 1;
      assert.equal(limiter.hit('ip', 1, 60_000).allowed, false);
      t += 1;
      assert.equal(limiter.hit('ip', 1, 60_000).allowed, true);
    } finally {
      await limiter.close();
    }
  });

  void it('counts keys separately', async () => {
    const limiter = new MemoryRateLimiter(() => start);
    try {
      assert.equal(limiter.hit('a', 1, 60_000).allowed, true);
      assert.equal(limiter.hit('b', 1, 60_000).allowed, true);
      assert.equal(limiter.hit('a', 1, 60_000).allowed, false);
    } finally {
      await limiter.close();
    }
  });
});

void describe('rateLimitHeaders', () => {
  void it('gives the X-RateLimit-* headers without Retry-After while allowed', () => {
    const h = rateLimitHeaders(
      { allowed: true, limit: 10, remaining: 4, resetAt: 1_800_000_060 },
      1_800_000_000_000,
    );
    assert.deepEqual(h, {
      'x-ratelimit-limit': '10',
      'x-ratelimit-remaining': '4',
      'x-ratelimit-reset': '1800000060',
    });
  });

  void it('adds Retry-After in seconds, at least 1, when refused', () => {
    const refused = { allowed: false, limit: 10, remaining: 0, resetAt: 1_800_000_060 };
    assert.equal(rateLimitHeaders(refused, 1_800_000_000_000)['retry-after'], '60');
    assert.equal(rateLimitHeaders(refused, 1_800_000_059_900)['retry-after'], '1');
    assert.equal(rateLimitHeaders(refused, 1_800_000_070_000)['retry-after'], '1');
  });
});
